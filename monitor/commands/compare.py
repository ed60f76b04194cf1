"""`aem compare BASE NEW`: what changed between two releases, with intervals, tests and conversations to open.

BASE and NEW are two release names (read from the verdict topic) or two files: `aem score --format json|jsonl`
outputs, or dialog files, which are scored now.
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from tqdm import tqdm

from monitor.calibration.overlay import Calibration
from monitor.commands import common
from monitor.commands.score import all_dialogs, build_config, chunks, scored
from monitor.report.compare import DEFAULT_ALPHA, DEFAULT_MIN_DROP, Comparison, Correction, Tally, compare
from monitor.report.compare_text import render_markdown, render_table
from monitor.scoring.config import ConfigFileError, load_config_file
from monitor.sources.files import InputError
from monitor.sources.results import is_score_output, read_results
from monitor.tools.topic_reader import TopicReader
from monitor.tools.verdict_scan import ScanStats, approximate_size, scan
from monitor.wiring import build_engine, judge_from_env, read_catalog

EPILOG = """\
From the topic: `aem compare 2026.11.1 2026.11.2` reads the `dialog` messages (finished conversations) of
both releases on the verdict topic, within --since/--until (broker time). From files: `aem compare a.json
b.json` compares two `aem score --format json` (or jsonl) outputs, or two dialog files scored now.

Rows: overall correctness, then per turn type, sub-metric, root cause (reason:field on action), tool action
and chain length, each with its 95 % Wilson interval per release, the change with its Newcombe interval, a
two-proportion z-test and a Benjamini-Hochberg q-value across all rows; worse rows first, each with three
conversation ids to open with `aem inspect`. docs/releases.md explains the numbers.

--config also gives the scoring settings for dialog files scored now and, when it holds a calibration that
measured the monitor's sensitivity and specificity (aem calibrate), each release's correctness corrected for
the monitor's error (Rogan-Gladen).

examples:
  aem compare 2026.11.1 2026.11.2 --since 7d --format markdown
  aem compare before.json after.json --fail-if-worse

""" + common.exit_codes(
    "0  compared (with --fail-if-worse: no significant and material drop)",
    "1  --fail-if-worse and overall correctness dropped by at least --min-drop with p below --alpha,",
    "   or a release has no scored turns to compare",
    "2  bad input or options, no broker reachable within --connect-timeout, or no such topic",
)

DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "compare", "compare two releases: what got worse, and where", EPILOG, cmd_compare)
    p.add_argument("base", metavar="BASE", help="the earlier release (a release name, or a file)")
    p.add_argument("new", metavar="NEW", help="the later release (a release name, or a file)")
    p.add_argument("--format", choices=["table", "json", "markdown"], default="table", help="output format")
    p.add_argument("--fail-if-worse", action="store_true", help="exit 1 on a significant and material drop")
    p.add_argument("--alpha", type=common.unit_interval, default=DEFAULT_ALPHA, help="significance level of the tests")
    p.add_argument(
        "--min-drop",
        type=common.unit_interval,
        default=DEFAULT_MIN_DROP,
        help="smallest drop of overall correctness (0..1) that fails --fail-if-worse",
    )
    p.add_argument("--agent", help="only this agent's conversations (topic)")
    p.add_argument(
        "--since", type=moment, metavar="WHEN", help="from this time: ISO 8601 (UTC) or a duration ago: 2h, 7d"
    )
    p.add_argument("--until", type=moment, metavar="WHEN", help="up to this time (same forms; default: now)")
    p.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="S",
        help="read again for up to S seconds until both releases have verdicts",
    )
    p.add_argument("--verdict-topic", default="aem.verdicts", help="verdict topic")
    p.add_argument("--tools", type=Path, help="tool catalog for dialog files scored now")
    common.add_broker_args(p)


def moment(text: str, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> datetime:
    """An argparse type: `2026-11-20T08:00` (UTC unless it says otherwise) or a duration ago (`90m`, `2h`, `7d`)."""
    found = DURATION.match(text.strip())
    if found:
        return now() - timedelta(seconds=float(found.group(1)) * SECONDS[found.group(2)])
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither an ISO 8601 time nor a duration like 2h or 7d") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


# -- files -----------------------------------------------------------------------------------------------


def results_of(path: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The dialog results of a file: read back from `aem score` output, or scored now from dialogs."""
    if is_score_output(path):
        return read_results(path)
    engine = build_engine(build_config(args), catalog=read_catalog(args.tools), judge=judge_from_env())
    return [r.model_dump(mode="json") for chunk in chunks(all_dialogs([path])) for r in scored(engine, chunk)]


def label_of(path: str, results: list[dict[str, Any]]) -> str:
    """The file's one release, else its name."""
    releases = {r.get("release") for r in results}
    only = next(iter(releases)) if len(releases) == 1 else None
    return only if isinstance(only, str) and only != "unknown" else Path(path).name


def tallies_from_files(args: argparse.Namespace) -> tuple[Tally, Tally]:
    base, new = results_of(args.base, args), results_of(args.new, args)
    base_label, new_label = label_of(args.base, base), label_of(args.new, new)
    if base_label == new_label:
        base_label, new_label = args.base, args.new
    out = []
    for label, results in ((base_label, base), (new_label, new)):
        tally = Tally(label)
        for result in results:
            tally.add(str(result["dialog_id"]), result["turns"])
        out.append(tally)
    return out[0], out[1]


# -- the topic -------------------------------------------------------------------------------------------


def tallies_from_topic(args: argparse.Namespace) -> tuple[Tally, Tally, ScanStats] | None:
    deadline = time.monotonic() + args.wait
    while True:
        tallies = {args.base: Tally(args.base), args.new: Tally(args.new)}
        stats = common.read_topic("compare", args, args.verdict_topic, partial(_read, args=args, tallies=tallies))
        if stats is None:
            return None
        complete = all(t.dialogs for t in tallies.values())
        if complete or time.monotonic() >= deadline:
            return tallies[args.base], tallies[args.new], stats
        time.sleep(1.0)


def _read(reader: TopicReader, stop: threading.Event, args: argparse.Namespace, tallies: dict[str, Tally]) -> ScanStats:
    bar = tqdm(total=approximate_size(reader), unit=" records", file=sys.stderr, disable=None, leave=False)
    try:
        return scan(reader, tallies, args.agent, _ms(args.since), _ms(args.until), stop, bar.update)
    finally:
        bar.close()


# -- output ----------------------------------------------------------------------------------------------


def correction_of(args: argparse.Namespace) -> Correction | None:
    """The monitor's error rates on all turns from the --config file's calibration, when it measured them."""
    if args.config is None:
        return None
    raw = load_config_file(args.config)
    section = raw.get("monitor") if isinstance(raw.get("monitor"), dict) else raw
    found = section.get("calibration") if isinstance(section, dict) else None
    if found is None:
        return None
    try:
        calibration = Calibration.model_validate(found)
    except ValidationError as exc:
        raise InputError(str(args.config), f"calibration: {exc.errors(include_url=False)[0]['msg']}") from None
    rates = {f.kind: f.value for f in calibration.agreement if f.turn_type == "all"}
    if "sensitivity" not in rates or "specificity" not in rates:
        return None
    return Correction(calibration.id, rates["sensitivity"], rates["specificity"])


def render(comparison: Comparison, fmt: str) -> str:
    if fmt == "json":
        return comparison.model_dump_json(indent=2)
    return render_markdown(comparison) if fmt == "markdown" else render_table(comparison)


def cmd_compare(args: argparse.Namespace) -> int:
    files = [Path(args.base).is_file(), Path(args.new).is_file()]
    if args.base == args.new:
        return common.error("compare", "BASE and NEW are the same")
    if any(files) and not all(files):
        missing = args.new if files[0] else args.base
        return common.error("compare", f"{missing}: no such file (BASE and NEW are both files or both releases)")
    if args.since and args.until and args.since >= args.until:
        return common.error("compare", "--since is not before --until")
    try:
        correction = correction_of(args)  # a bad config fails before any reading or scoring
    except (InputError, ConfigFileError) as exc:
        return common.error("compare", exc)
    if all(files):
        try:
            base, new = tallies_from_files(args)
        except (InputError, ConfigFileError) as exc:
            return common.error("compare", exc)
    else:
        found = tallies_from_topic(args)
        if found is None:
            return common.EXIT_USAGE
        base, new, stats = found
        if stats.unreadable:
            sys.stderr.write(
                f"aem compare: {stats.unreadable} records on {args.verdict_topic} were not verdict records\n"
            )
    empty = [t.release for t in (base, new) if not t.rows]
    if empty:
        where = "in the files" if all(files) else f"on {args.verdict_topic} (finished conversations, in the window)"
        return common.error("compare", f"no scored turns for {' and '.join(empty)} {where}", common.EXIT_FAILED)
    comparison = compare(base, new, args.alpha, args.min_drop, correction)
    sys.stdout.write(render(comparison, args.format) + "\n")
    if args.fail_if_worse and comparison.gate.failed:
        sys.stderr.write(f"aem compare: {comparison.gate.reason}\n")
        return common.EXIT_FAILED
    return common.EXIT_OK
