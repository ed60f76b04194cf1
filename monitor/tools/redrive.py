"""Send dead-lettered events back to the trace topic, each DLQ offset once.

Only an event the monitor would now read is re-sent: one that still fails validation (checked as `aem run`
checks it, with its input format and limits) is refused with its error, never sent to be dead-lettered
again. The positions handled (sent or refused) are committed under a consumer group of their own
(`aem-redrive` by default), after the producer has acknowledged the re-sent records: running it twice sends
nothing twice, and a crash between send and commit re-sends at most the last batch.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import structlog
from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from monitor.cluster import KafkaClient, make_consumer, make_producer
from monitor.models.trace_event import EventLimits, InvalidEvent, read_native
from monitor.sources.otlp import Encoding, OtlpMapping, read_batch
from monitor.tools.topic_reader import Record, TopicMissing

log = structlog.get_logger(__name__)

REDRIVEN_HEADER = "aem-redriven-from"
TRUNCATED_HEADER = "aem-truncated"
SHOWN_REFUSALS = 20  # refusals kept with their error; the rest are counted


def check_record(
    value: bytes | None, key: bytes | None, input_format: str, limits: EventLimits, mapping: OtlpMapping
) -> None:
    """Raise InvalidEvent with the reason a monitor reading `input_format` would dead-letter this record on
    arrival; return when it would read it."""
    if input_format == "aem":
        read_native(value, key, limits)
    else:
        read_batch(value, Encoding(input_format), limits.max_bytes, mapping)


@dataclass(frozen=True)
class Refusal:
    """A DLQ record not re-sent because it still fails validation."""

    source: str  # <dlq topic>/<partition>/<offset>
    key: str
    error: str


@dataclass
class RedriveCount:
    read: int = 0
    sent: int = 0
    refused: int = 0  # still failing validation: not sent
    truncated: int = 0  # records the monitor had to cut or reduce to metadata: their bytes are not the event
    refusals: list[Refusal] = field(default_factory=list)  # the first SHOWN_REFUSALS, with their errors


@dataclass(frozen=True)
class RedrivePlan:
    cluster: KafkaClient
    dlq_topic: str = "aem.traces.dlq"
    traces_topic: str = "aem.traces"
    group_id: str = "aem-redrive"
    dry_run: bool = False  # count, send nothing, commit nothing
    # what the monitor reading `traces_topic` accepts: its input format, limits and OTLP mapping
    input_format: str = "aem"
    limits: EventLimits = field(default_factory=EventLimits)
    mapping: OtlpMapping = field(default_factory=OtlpMapping)


def _headers(record: Record) -> list[tuple[str, bytes]]:
    kept = [(k, v) for k, v in record.headers if not k.startswith("aem-")]
    return [*kept, (REDRIVEN_HEADER, _source(record).encode())]


def _start_positions(consumer: Any, tps: list[TopicPartition]) -> dict[TopicPartition, int | None]:
    """Where the group stopped last time (None: from the beginning)."""
    return {tp: consumer.committed(tp) for tp in tps}


def _seek(consumer: Any, start: dict[TopicPartition, int | None]) -> None:
    for tp, offset in start.items():
        if offset is None:
            consumer.seek_to_beginning(tp)
        else:
            consumer.seek(tp, offset)


def _polled(consumer: Any) -> Any:
    """Records until two polls in a row come back empty (Tansu's end offsets cannot be trusted)."""
    empty = 0
    while empty < 2:
        batch = consumer.poll(timeout_ms=500)
        empty = 0 if batch else empty + 1
        for records in batch.values():
            yield from records


def _last_offsets(consumer: Any) -> dict[int, int]:
    """The last offset per partition as of now: the re-drive stops there, so events dead-lettered
    again while it runs (a monitor is consuming what it sends) are left for the next run."""
    last: dict[int, int] = {}
    for rec in _polled(consumer):
        last[rec.partition] = rec.offset
    return last


def redrive(plan: RedrivePlan, **client_options: Any) -> RedriveCount:
    """Read the DLQ from the group's committed positions to its current end; re-send; commit."""
    consumer = make_consumer(plan.cluster, [], plan.group_id, client_id="aem-redrive", **client_options)
    producer = None if plan.dry_run else make_producer(plan.cluster, client_id="aem-redrive", **client_options)
    count = RedriveCount()
    try:
        numbers = consumer.partitions_for_topic(plan.dlq_topic)
        if not numbers:
            raise TopicMissing(plan.dlq_topic)
        tps = [TopicPartition(plan.dlq_topic, p) for p in sorted(numbers)]
        consumer.assign(tps)
        start = _start_positions(consumer, tps)
        _seek(consumer, start)
        last = _last_offsets(consumer)
        _seek(consumer, start)
        next_offsets: dict[TopicPartition, int] = {}
        for rec in _polled(consumer):
            if rec.offset > last.get(rec.partition, -1):
                continue
            record = Record.of(rec)
            count.read += 1
            next_offsets[TopicPartition(rec.topic, rec.partition)] = record.offset + 1
            if record.header(TRUNCATED_HEADER) is not None:
                count.truncated += 1
                continue
            error = _still_invalid(record, plan)
            if error is not None:
                count.refused += 1
                if len(count.refusals) < SHOWN_REFUSALS:
                    count.refusals.append(Refusal(_source(record), _shown(record.key), error))
                continue
            if producer is not None:
                producer.send(plan.traces_topic, key=record.key, value=record.value, headers=_headers(record))
            count.sent += 1
        if producer is not None and next_offsets:
            producer.flush(timeout=30)
            consumer.commit({tp: OffsetAndMetadata(off, "", -1) for tp, off in next_offsets.items()})
        counts = {k: v for k, v in vars(count).items() if k != "refusals"}
        log.info("dlq_redriven", **counts, dlq=plan.dlq_topic, to=plan.traces_topic, dry_run=plan.dry_run)
        return count
    finally:
        if producer is not None:
            with contextlib.suppress(Exception):
                producer.close(timeout=5)
        with contextlib.suppress(Exception):
            consumer.close(autocommit=False)


def _still_invalid(record: Record, plan: RedrivePlan) -> str | None:
    """Why the monitor would dead-letter this record again, or None when it would read it now."""
    try:
        check_record(record.value, record.key, plan.input_format, plan.limits, plan.mapping)
    except InvalidEvent as exc:
        return str(exc)
    return None


def _source(record: Record) -> str:
    return f"{record.topic}/{record.partition}/{record.offset}"


def _shown(key: bytes | None) -> str:
    return "(none)" if key is None else key[:80].decode("utf-8", errors="replace")
