"""`aem replay`: publish dialog files (the `aem score` shapes) as trace events."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from kafka.errors import KafkaError

from monitor.cluster import make_producer
from monitor.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_broker_args,
    add_command,
    connect,
    error,
    exit_codes,
    positive_float,
    positive_int,
)
from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.report import plural
from monitor.sources.files import InputError, read_dialogs
from monitor.sources.replay_ids import conversation_ids, run_tag
from monitor.tools.replay import dialog_events, publish, publish_otlp

EPILOG = """\
Each run publishes its dialogs under fresh conversation ids (<dialog_id>-<run tag>), so replaying a
file twice scores it twice; --keep-ids uses the dialog ids themselves (the monitor then drops a
second replay as duplicates). The ids used are printed.

""" + exit_codes(
    "0  every event published",
    "1  the broker did not acknowledge every event",
    "2  bad input files, or no broker reachable within --connect-timeout",
)


def add_parser(sub: Any) -> None:
    p = add_command(sub, "replay", "publish dialog files as trace events", EPILOG, cmd_replay)
    p.add_argument("paths", nargs="*", metavar="PATH", help="dialog files (JSON or JSONL)")
    p.add_argument("--sample", action="store_true", help="also publish the bundled sample traffic")
    add_broker_args(p)
    p.add_argument("--topic", default="aem.traces", help="trace topic")
    p.add_argument("--rate", type=positive_float, help="events per second (default: as fast as possible)")
    p.add_argument("--repeat", type=positive_int, default=1, help="publish each dialog N times, as new conversations")
    p.add_argument("--release", help="override the release of every dialog (default: the file's)")
    p.add_argument("--keep-ids", action="store_true", help="use the dialog ids as conversation ids (no run tag)")
    p.add_argument(
        "--format",
        choices=["aem", "otlp_json", "otlp_proto"],
        default="aem",
        help="aem trace events, or each dialog as a trace of OpenTelemetry GenAI spans in OTLP (docs/otlp.md)",
    )


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        dialogs = [d for path in args.paths for d in read_dialogs(path)]
    except InputError as exc:
        return error("replay", exc)
    if args.sample:
        dialogs += [Dialog.model_validate(d) for d in sample_dialogs()]
    if not dialogs:
        return error("replay", "give dialog files or --sample")
    cluster = connect("replay", args)
    if cluster is None:
        return EXIT_USAGE
    tag = None if args.keep_ids else run_tag()
    ids = [conversation_ids(d.dialog_id, args.repeat, tag) for d in dialogs]

    def events() -> Iterator[dict[str, Any]]:
        for round_no in range(args.repeat):
            for dialog, cids in zip(dialogs, ids, strict=True):
                yield from dialog_events(dialog, conversation_id=cids[round_no], release=args.release)

    block_ms = int(args.connect_timeout * 1000)
    producer = make_producer(cluster, client_id="aem-replay", max_block_ms=block_ms)
    try:
        if args.format != "aem":
            pairs = (
                (dialog, cids[round_no])
                for round_no in range(args.repeat)
                for dialog, cids in zip(dialogs, ids, strict=True)
            )
            sent = publish_otlp(producer, args.topic, pairs, args.format, release=args.release, rate=args.rate)
        else:
            sent = publish(producer, args.topic, events(), rate=args.rate)
    except KafkaError as exc:
        return error("replay", f"publishing to {args.topic} at {cluster} failed: {exc}", 1)
    finally:
        producer.close(timeout=10)
    conversations = sum(len(v) for v in ids)
    batch = f"{args.format} batch"
    unit = plural(sent, "event") if args.format == "aem" else plural(sent, batch, batch + "es")
    sys.stderr.write(f"aem replay: published {unit} of {plural(conversations, 'conversation')} to {args.topic}\n")
    shown = [cid for v in ids for cid in v][:10]
    more = f" … and {conversations - len(shown)} more" if conversations > len(shown) else ""
    sys.stdout.write("conversation ids: " + " ".join(shown) + more + "\n")
    return EXIT_OK
