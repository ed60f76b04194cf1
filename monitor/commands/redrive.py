"""`aem redrive`: dead-lettered events back to the trace topic, counted, each DLQ offset once."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kafka.errors import KafkaError
from pydantic import ValidationError

from monitor.commands import common
from monitor.report import plural
from monitor.sources.files import validation_error
from monitor.stream.settings import load_settings
from monitor.tools.redrive import RedriveCount, RedrivePlan, redrive
from monitor.tools.topic_reader import TopicMissing

EPILOG = """\
Reads the DLQ from where the last re-drive (same --group-id) stopped and checks each event as the
monitor would (its --input-format, and the limits of --config and AEM_* settings). An event the
monitor would now read is re-sent, its original bytes and key, to the trace topic with an
`aem-redriven-from: <topic>/<partition>/<offset>` header; an event that still fails validation is
refused: not sent, printed with its error. Records the monitor had to cut (header aem-truncated) are
never re-sent: their bytes are not the original event. The DLQ positions are committed once the
broker acknowledged what was sent, so running it again reads only what arrived in the DLQ since.

""" + common.exit_codes(
    "0  done, nothing refused (the counts are printed)",
    "1  some events still fail validation and were refused (each printed with its error)",
    "2  bad settings, no broker reachable within --connect-timeout, or no such topic",
)


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "redrive", "send DLQ events back to the trace topic", EPILOG, cmd_redrive)
    common.add_broker_args(p)
    p.add_argument("--dlq-topic", default="aem.traces.dlq", help="dead-letter topic to read")
    p.add_argument("--topic", default="aem.traces", help="trace topic to send to")
    p.add_argument("--group-id", default="aem-redrive", help="consumer group that remembers what was re-driven")
    p.add_argument(
        "--input-format",
        choices=["aem", "otlp_json", "otlp_proto"],
        help="what the monitor reading --topic reads, to check events as it does (default: aem, or the config's)",
    )
    p.add_argument("--dry-run", action="store_true", help="count and check what would be sent; send and commit nothing")


def cmd_redrive(args: argparse.Namespace) -> int:
    cluster = common.connect("redrive", args)
    if cluster is None:
        return common.EXIT_USAGE
    try:
        settings = load_settings(args.config, overrides={"input_format": args.input_format})
    except ValidationError as exc:
        return common.error("redrive", validation_error(str(args.config or "settings"), None, exc))
    plan = RedrivePlan(
        cluster=cluster,
        dlq_topic=args.dlq_topic,
        traces_topic=args.topic,
        group_id=args.group_id,
        dry_run=args.dry_run,
        input_format=settings.input_format,
        limits=settings.event_limits,
        mapping=settings.otlp,
    )
    try:
        count = redrive(plan)
    except TopicMissing as exc:
        return common.error("redrive", f"{exc} on {cluster}")
    except KafkaError as exc:
        return common.error("redrive", f"re-driving {args.dlq_topic} on {cluster} failed: {exc}")
    sys.stdout.write(summary(count, args.dlq_topic, args.topic, args.dry_run) + "\n")
    refused = "would refuse" if args.dry_run else "refused"
    for r in count.refusals:
        sys.stderr.write(f"aem redrive: {refused} {r.source} (key {r.key}), it still fails validation: {r.error}\n")
    if count.refused > len(count.refusals):
        sys.stderr.write(f"aem redrive: … and {count.refused - len(count.refusals)} more {refused}\n")
    return common.EXIT_FAILED if count.refused else common.EXIT_OK


def summary(count: RedriveCount, dlq_topic: str, topic: str, dry_run: bool) -> str:
    verb = "would send" if dry_run else "sent"
    line = f"redrive: read {plural(count.read, 'new DLQ record')} from {dlq_topic}, {verb} {count.sent} to {topic}"
    if count.refused:
        refused = "would refuse" if dry_run else "refused"
        line += f", {refused} {count.refused} that still fail validation (not sent)"
    if count.truncated:
        line += f", skipped {count.truncated} cut short by the DLQ size limit (not the original event)"
    return line
