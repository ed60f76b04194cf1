"""`aem tail TOPIC`: one readable line per record (verdicts, dialog summaries, DLQ entries, trace events)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any

from monitor.commands import common
from monitor.report import as_json, conversation_of, format_line, plural
from monitor.tools.topic_reader import TopicReader, partition_for_key

EPILOG = """\
Reads TOPIC from its first record (no consumer group, nothing committed) and prints one line per
record: `p<partition>@<offset>  <conversation>  <what>`. DLQ records show their `aem-error` and
`aem-source` headers. Without --follow it stops once the topic has nothing more to give.

examples:
  aem tail aem.verdicts --conversation sales_report
  aem tail aem.traces.dlq
  aem tail aem.verdicts --follow --json

""" + common.exit_codes(
    "0  read to the end (or stopped with Ctrl-C while following)",
    "2  no broker reachable within --connect-timeout, or no such topic",
)


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "tail", "print the records of a topic, one line each", EPILOG, cmd_tail)
    p.add_argument("topic", metavar="TOPIC", help="e.g. aem.verdicts, aem.traces.dlq, aem.traces")
    common.add_broker_args(p)
    p.add_argument("--follow", "-f", action="store_true", help="keep reading new records until Ctrl-C")
    p.add_argument("--conversation", metavar="ID", help="only the records of this conversation")
    p.add_argument("--json", action="store_true", help="one JSON object per record (position, key, headers, value)")
    p.add_argument("--limit", type=int, help="stop after this many records (default: no limit)")


def show(reader: TopicReader, args: argparse.Namespace, stop: threading.Event) -> int:
    """Print the records `args` ask for; returns how many."""
    shown = 0
    partitions = reader.partitions()
    if args.conversation:  # a conversation's records all sit on the partition its key hashes to
        partitions = [partitions[partition_for_key(args.conversation, len(partitions))]]
    reader.assign(partitions)
    for record in reader.records(follow=args.follow, stop=stop):
        if args.conversation and conversation_of(record) != args.conversation:
            continue
        line = json.dumps(as_json(record), ensure_ascii=False) if args.json else format_line(record)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        shown += 1
        if args.limit is not None and shown >= args.limit:
            break
    return shown


def cmd_tail(args: argparse.Namespace) -> int:
    shown = common.read_topic("tail", args, args.topic, lambda reader, stop: show(reader, args, stop))
    if shown is None:
        return common.EXIT_USAGE
    if not args.json:
        sys.stderr.write(f"aem tail: {plural(shown, 'record')} from {args.topic}\n")
    return common.EXIT_OK
