"""`aem review`: pick verdicts for people to check into a review file (docs/trusting-verdicts.md)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from monitor.calibration.cuts import cut_config
from monitor.calibration.labels import LabelError, write_csv, write_jsonl
from monitor.calibration.sample import payload_of, payloads_of, pick, review_row, turn_records
from monitor.commands import common
from monitor.report.records import decode_json
from monitor.scoring.config import load_config_file
from monitor.sources.files import InputError, iter_dialogs
from monitor.tools.topic_reader import TopicReader

EPILOG = """\
Reads the turn verdicts of `aem score --format json` output (SCORES files) or of the verdict topic
(--from-topic), and writes --max of them to a review file: stratified by release, turn type and
verdict, the least certain (closest to a cut) first. Fill the `label` column with `pass` or a
failure reason, then run `aem calibrate`.

examples:
  aem score dialogs.jsonl --format json > scores.json
  aem review scores.json --dialogs dialogs.jsonl --out review.jsonl --csv
  aem review --from-topic aem.verdicts --since 24h --max 200 --out review.jsonl

""" + common.exit_codes(
    "0  review file written",
    "2  bad input or options, or no broker reachable / no such topic with --from-topic",
)

SCORES_EXPECTED = (
    "SCORES expects `aem score --format json` output; for dialog files run "
    "`aem score FILE --format json > scores.json` first, or pass them with --dialogs"
)
DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def moment(text: str) -> float:
    """An argparse type: `24h` / `30m` / `7d` ago, or an ISO-8601 date-time, as epoch seconds."""
    if m := DURATION.match(text.strip()):
        return time.time() - float(m.group(1)) * UNIT_S[m.group(2)]
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a duration (24h) nor an ISO date-time") from None


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "review", "pick verdicts for people to label into a review file", EPILOG, cmd_review)
    p.add_argument("scores", nargs="*", metavar="SCORES", help="`aem score --format json` output files")
    p.add_argument("--from-topic", metavar="TOPIC", help="read the turn verdicts of this topic (e.g. aem.verdicts)")
    p.add_argument("--since", type=moment, help="only verdicts written since: 24h, 30m, 7d or an ISO date-time")
    p.add_argument("--until", type=moment, help="only verdicts written before (same forms)")
    p.add_argument("--max", type=common.positive_int, default=200, help="turns in the review file")
    p.add_argument("--seed", type=int, default=0, help="the same seed picks the same turns")
    p.add_argument(
        "--dialogs", nargs="+", default=[], metavar="PATH", help="dialog files: add gold and predicted turns"
    )
    p.add_argument("--out", type=Path, default=Path("review.jsonl"), help="review file (JSONL)")
    p.add_argument("--csv", action="store_true", help="also write the review file as CSV (same name, .csv)")
    common.add_broker_args(p)


def _from_files(paths: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(path, exc.strerror or "unreadable") from None
        except ValueError as exc:
            raise InputError(path, f"{SCORES_EXPECTED} (not one JSON document: {exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("dialogs"), list):
            raise InputError(path, f"{SCORES_EXPECTED} (no dialogs list)")
        records += turn_records(data)
    return records


def _from_topic(reader: TopicReader, args: argparse.Namespace, stop: threading.Event) -> list[dict[str, Any]]:
    reader.assign()
    found: list[dict[str, Any]] = []
    for record in reader.records(stop=stop):
        seconds = record.timestamp_ms / 1000
        if (args.since is not None and seconds < args.since) or (args.until is not None and seconds >= args.until):
            continue
        data = decode_json(record.value)
        if isinstance(data, dict) and data.get("kind") == "turn" and isinstance(data.get("conversation_id"), str):
            found.append(data)
    return found


def _config(args: argparse.Namespace) -> Mapping[str, Any]:
    return cut_config(load_config_file(args.config)) if args.config else {}


def cmd_review(args: argparse.Namespace) -> int:
    if bool(args.scores) == bool(args.from_topic):
        return common.error("review", "give SCORES files or --from-topic TOPIC (one of them)")
    try:
        config = _config(args)
        payloads = payloads_of(d for path in args.dialogs for d in iter_dialogs(path))
        if args.from_topic:
            topic_records = common.read_topic("review", args, args.from_topic, lambda r, s: _from_topic(r, args, s))
            if topic_records is None:
                return common.EXIT_USAGE
            records = topic_records
        else:
            records = _from_files(args.scores)
        rows = pick([review_row(r, config, payloads) for r in records], args.max, args.seed)
    except (InputError, LabelError, OSError, ValueError) as exc:
        return common.error("review", exc)
    write_jsonl(rows, args.out)
    if args.csv:
        write_csv(rows, args.out.with_suffix(".csv"))
    sys.stderr.write(f"aem review: {len(rows)} of {len(records)} turn verdicts to review in {args.out}\n")
    if args.dialogs and (missing := [r for r in rows if payload_of(payloads, r.conversation_id, r.turn_no) is None]):
        sys.stderr.write(
            f"aem review: {len(missing)} of {len(rows)} rows found no turn in --dialogs "
            f"(e.g. turn {missing[0].turn_no} of {missing[0].conversation_id!r}): their gold_turn and "
            "predict_turn are empty\n"
        )
    return common.EXIT_OK
