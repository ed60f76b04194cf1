"""Reading the verdict topic for a release comparison: the `dialog` messages (finished conversations, each with
every turn verdict and its chain length) of the chosen releases, within a time window, into one `Tally` per
release.

Only `dialog` messages are decoded: every verdict record starts with its `"kind"` (the one serialiser,
monitor/stream/verdict_records.py), so a `turn` or `chain` record is skipped on its first bytes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kafka import TopicPartition

from monitor.report.compare import Tally
from monitor.tools.topic_reader import TopicReader

DIALOG_PREFIX = b'{"kind":"dialog"'
VERDICT_PREFIX = b'{"kind":'


@dataclass
class ScanStats:
    """What a scan read: every record, the dialog summaries it counted, and what it could not read."""

    records: int = 0
    outside_window: int = 0
    dialogs: int = 0
    duplicates: int = 0
    unreadable: int = 0  # not a verdict record, or a dialog message not in the documented shape


def approximate_size(reader: TopicReader) -> int:
    """Records on the topic, from the partitions' first and end offsets (an estimate for a progress bar)."""
    parts = [TopicPartition(reader.topic, p) for p in reader.partitions()]
    start = reader.consumer.beginning_offsets(parts)
    end = reader.consumer.end_offsets(parts)
    return sum(max(0, end[tp] - start[tp]) for tp in parts)


def scan(
    reader: TopicReader,
    tallies: Mapping[str, Tally],
    agent: str | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    stop: threading.Event | None = None,
    progress: Callable[[int], None] | None = None,
) -> ScanStats:
    """Count the dialog messages of the releases in ``tallies`` (of ``agent`` when given) whose broker time is
    in [since_ms, until_ms); reads every partition from the start until the topic has nothing more to give."""
    stats = ScanStats()
    reader.assign()
    step = 0
    for record in reader.records(stop=stop):
        stats.records += 1
        step += 1
        if progress is not None and step >= 2048:
            progress(step)
            step = 0
        if (since_ms is not None and record.timestamp_ms < since_ms) or (
            until_ms is not None and record.timestamp_ms >= until_ms
        ):
            stats.outside_window += 1
            continue
        value = record.value
        if value is None or not value.startswith(VERDICT_PREFIX):
            stats.unreadable += 1
            continue
        if not value.startswith(DIALOG_PREFIX):
            continue
        _add(value, tallies, agent, stats)
    if progress is not None and step:
        progress(step)
    return stats


def _add(value: bytes, tallies: Mapping[str, Tally], agent: str | None, stats: ScanStats) -> None:
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        stats.unreadable += 1
        return
    tally = tallies.get(data.get("release"))
    if tally is None or (agent is not None and data.get("agent") != agent):
        return
    conversation, turns = data.get("conversation_id"), data.get("turns")
    if not isinstance(conversation, str) or not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        stats.unreadable += 1
        return
    if tally.add(conversation, turns):
        stats.dialogs += 1
    else:
        stats.duplicates += 1
