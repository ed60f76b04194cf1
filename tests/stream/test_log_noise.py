"""kafka-python's closing-client noise is filtered; its other errors are not."""

from __future__ import annotations

import logging

import kafka.errors as Errors
import pytest

from monitor.logs import configure_logging


def test_cancelled_metadata_loop_on_close_is_dropped_other_errors_kept(caplog: pytest.LogCaptureFixture) -> None:
    configure_logging("warning")  # what every entry point (and tests/conftest.py) calls
    log = logging.getLogger("kafka.cluster")
    with caplog.at_level(logging.ERROR, logger="kafka.cluster"):
        log.error("Metadata refresh loop error: %s", Errors.Cancelled())
        log.error("Metadata refresh loop error: %s", RuntimeError("broken"))
        log.error("Something else: %s", Errors.Cancelled())
    assert [r.getMessage() for r in caplog.records] == [
        "Metadata refresh loop error: broken",
        "Something else: Cancelled",
    ]
