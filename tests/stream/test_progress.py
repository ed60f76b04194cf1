"""`aem run`'s info-level story: group joined once, a progress line per interval, duplicate warnings with counts."""

from __future__ import annotations

import pytest
from kafka import TopicPartition
from structlog.testing import capture_logs

from monitor.logs import configure_logging
from monitor.stream.progress import ProgressLog
from tests.stream.helpers import FakeClock


@pytest.fixture(autouse=True)
def info_level():
    configure_logging("info")
    yield
    configure_logging("warning")


def figures() -> dict[str, int]:
    return {"events": 10, "verdicts": 8, "dialogs": 2, "dlq": 1, "open_dialogs": 3, "lag": 4}


def test_group_joined_is_logged_once():
    progress = ProgressLog()
    with capture_logs() as logs:
        progress.group_joined("g", {TopicPartition("t", 2), TopicPartition("t", 0)})
        progress.group_joined("g", {TopicPartition("t", 1)})
    assert logs == [{"event": "group_joined", "group": "g", "partitions": [0, 2], "log_level": "info"}]


def test_a_progress_line_per_interval():
    clock = FakeClock()
    progress = ProgressLog(interval_s=30.0, clock=clock)
    with capture_logs() as logs:
        progress.tick(figures)
        clock.advance(29)
        progress.tick(figures)
        clock.advance(2)
        progress.tick(figures)
        clock.advance(10)
        progress.tick(figures)
    assert [entry["event"] for entry in logs] == ["progress"]
    assert {k: logs[0][k] for k in ("events", "verdicts", "dialogs", "dlq", "lag", "open_dialogs")} == {
        "events": 10, "verdicts": 8, "dialogs": 2, "dlq": 1, "lag": 4, "open_dialogs": 3,
    }  # fmt: skip


def test_duplicates_are_reported_with_counts_at_most_every_interval():
    clock = FakeClock()
    progress = ProgressLog(duplicate_interval_s=10.0, clock=clock)
    with capture_logs() as logs:
        for cid in ("a", "a", "b"):
            progress.saw("duplicate", cid)
        progress.saw("late", "c")
        progress.saw(None, "d")
        progress.tick(figures)
        progress.saw("duplicate", "e")
        progress.tick(figures)  # within the interval: held back
        clock.advance(10)
        progress.tick(figures)
    warnings = [entry for entry in logs if entry["event"] == "duplicates_dropped"]
    assert [(w["dropped"], w["total"], w["conversations"]) for w in warnings] == [(3, 3, ["a", "b"]), (1, 4, ["e"])]
    assert all(w["log_level"] == "warning" for w in warnings)
