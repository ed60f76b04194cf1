"""`aem redrive`: dead-lettered events back to the trace topic, counted, each DLQ offset once."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kafka.errors import KafkaError

from monitor.commands import common
from monitor.tools.redrive import RedrivePlan, redrive
from monitor.tools.topic_reader import TopicMissing

EPILOG = """\
Reads the DLQ from where the last re-drive (same --group-id) stopped, re-sends each event's original
bytes and key to the trace topic with an `aem-redriven-from: <topic>/<partition>/<offset>` header, and
commits the DLQ positions once the broker acknowledged them. Running it again sends only what arrived
in the DLQ since. An event that is still invalid lands in the DLQ again (as a new record);
--valid-only skips those instead, counting them. Records the monitor had to cut (header
aem-truncated) are never re-sent: their bytes are not the original event.

""" + common.exit_codes(
    "0  done (the counts are printed)",
    "2  no broker reachable within --connect-timeout, or no such topic",
)


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "redrive", "send DLQ events back to the trace topic", EPILOG, cmd_redrive)
    common.add_broker_args(p)
    p.add_argument("--dlq-topic", default="aem.traces.dlq", help="dead-letter topic to read")
    p.add_argument("--topic", default="aem.traces", help="trace topic to send to")
    p.add_argument("--group-id", default="aem-redrive", help="consumer group that remembers what was re-driven")
    p.add_argument("--valid-only", action="store_true", help="send only events that now pass validation")
    p.add_argument("--dry-run", action="store_true", help="count what would be sent; send and commit nothing")


def cmd_redrive(args: argparse.Namespace) -> int:
    cluster = common.connect("redrive", args)
    if cluster is None:
        return common.EXIT_USAGE
    plan = RedrivePlan(
        cluster=cluster,
        dlq_topic=args.dlq_topic,
        traces_topic=args.topic,
        group_id=args.group_id,
        valid_only=args.valid_only,
        dry_run=args.dry_run,
    )
    try:
        count = redrive(plan)
    except TopicMissing as exc:
        return common.error("redrive", f"{exc} on {cluster}")
    except KafkaError as exc:
        return common.error("redrive", f"re-driving {args.dlq_topic} on {cluster} failed: {exc}")
    verb = "would send" if args.dry_run else "sent"
    skipped = f", skipped {count.still_invalid} still invalid" if args.valid_only else ""
    if count.truncated:
        skipped += f", skipped {count.truncated} cut short by the DLQ size limit (not the original event)"
    sys.stdout.write(
        f"redrive: read {count.read} new DLQ records from {args.dlq_topic}, {verb} {count.sent} to {args.topic}"
        f"{skipped}\n"
    )
    return common.EXIT_OK
