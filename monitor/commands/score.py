"""`aem score`: the offline scorer and CI gate.

With `--format jsonl` dialogs are read, scored and written in chunks, so memory stays bounded however
large a JSONL input is; `json` and `table` need every result before they print.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TextIO

import structlog
from pydantic import ValidationError

from monitor.commands.common import EXIT_FAILED, EXIT_OK, add_command, error, exit_codes, unit_interval
from monitor.models.dialog import Dialog
from monitor.models.verdict import DialogResult
from monitor.report import render_table, summarize
from monitor.scoring import ScoringConfig, ScoringEngine
from monitor.scoring.config import ConfigFileError, load_config_file
from monitor.sources.files import InputError, iter_dialogs, settings_error
from monitor.wiring import build_engine, judge_from_env, read_catalog

log = structlog.get_logger(__name__)

CHUNK = 256  # dialogs scored together (one embedding batch) and then written

EPILOG = """\
Input: JSON or JSONL in any dialog shape of docs/dialog-files.md. JSONL input with --format jsonl is
streamed: results are written as they are scored (so a bad line late in a file stops the run after
the earlier results were printed).

""" + exit_codes(
    "0  scored (and at or above --fail-under)",
    "1  the overall success rate is below --fail-under, or nothing could be scored",
    "2  bad input (the message names file, dialog and field) or bad options",
)


def add_parser(sub: Any) -> None:
    p = add_command(sub, "score", "score annotated dialog files (JSON/JSONL) offline", EPILOG, run_score)
    p.add_argument("paths", nargs="+", metavar="PATH", help="dialog files (.json or .jsonl)")
    p.add_argument("--format", choices=["jsonl", "json", "table"], default="jsonl", help="output format")
    p.add_argument("--threshold", type=unit_interval, help="semantic equivalence cut, 0..1 (default: 0.5)")
    p.add_argument("--pass-bar", type=unit_interval, help="success_rate a dialog needs for test_pass (default: 1.0)")
    p.add_argument("--fail-under", type=unit_interval, help="exit 1 when the overall success rate is below this (0..1)")
    p.add_argument("--config", type=Path, help="YAML/JSON config file (scoring section or top level)")
    p.add_argument("--tools", type=Path, help="tool catalog (JSON list of {tool_id, action, parameters})")


def build_config(args: argparse.Namespace) -> ScoringConfig:
    data: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    if getattr(args, "config", None):
        raw = load_config_file(args.config)
        data = dict(raw.get("scoring", raw))
    if getattr(args, "threshold", None) is not None:
        data["threshold"] = args.threshold
    if getattr(args, "pass_bar", None) is not None:
        data.setdefault("composition", {})["pass_bar"] = args.pass_bar
    try:
        return ScoringConfig.model_validate(data)
    except ValidationError as exc:
        section = "scoring" if args.config and "scoring" in raw else None
        raise settings_error(str(args.config or "command line"), exc, section) from None


@dataclass
class Tally:
    """Running totals for the gate, kept while results stream past."""

    dialogs: int = 0
    scored: int = 0
    passed: int = 0

    def add(self, result: DialogResult) -> None:
        self.dialogs += 1
        for turn in result.turns:
            if turn.success is not None:
                self.scored += 1
                self.passed += int(turn.success)

    @property
    def success_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None


def chunks(dialogs: Iterable[tuple[str, Dialog]], size: int = CHUNK) -> Iterator[list[tuple[str, Dialog]]]:
    it = iter(dialogs)
    while chunk := list(islice(it, size)):
        yield chunk


def all_dialogs(paths: Iterable[str]) -> Iterator[tuple[str, Dialog]]:
    """Each dialog with the file it comes from."""
    for path in paths:
        for dialog in iter_dialogs(path):
            yield path, dialog


def scored(engine: ScoringEngine, chunk: list[tuple[str, Dialog]]) -> list[DialogResult]:
    """Score a chunk in one batch; if that raises, dialog by dialog, so the error names the one that failed."""
    try:
        return engine.score_dialogs([dialog for _, dialog in chunk])
    except Exception:  # found again below, with its file and dialog
        pass
    results = []
    for path, dialog in chunk:
        try:
            results.append(engine.score_dialog(dialog))
        except Exception as exc:  # a dialog the scorer cannot handle: one line naming it, never a traceback
            reason = f"scoring failed ({type(exc).__name__}: {str(exc)[:200]})"
            raise InputError(path, reason, dialog=dialog.dialog_id) from None
    return results


def stream_jsonl(engine: ScoringEngine, paths: Iterable[str], out: TextIO) -> Tally:
    tally = Tally()
    for chunk in chunks(all_dialogs(paths)):
        for result in scored(engine, chunk):
            out.write(result.model_dump_json() + "\n")
            tally.add(result)
        out.flush()
    return tally


def write_all(engine: ScoringEngine, paths: Iterable[str], fmt: str, out: TextIO) -> Tally:
    results = [r for chunk in chunks(all_dialogs(paths)) for r in scored(engine, chunk)]
    summary = summarize(results)
    if fmt == "json":
        doc = {"dialogs": [r.model_dump(mode="json") for r in results], "summary": summary}
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(render_table(results, summary) + "\n")
    tally = Tally()
    for result in results:
        tally.add(result)
    return tally


def gate(tally: Tally, fail_under: float | None) -> int:
    rate = tally.success_rate
    log.info("scored", dialogs=tally.dialogs, scored_turns=tally.scored, success_rate=rate)
    if fail_under is None:
        return EXIT_OK
    if rate is None:
        sys.stderr.write(f"aem score: no scored turns, so the --fail-under {fail_under:g} gate fails\n")
        return EXIT_FAILED
    if rate < fail_under:
        sys.stderr.write(f"aem score: success rate {rate:.4f} is below --fail-under {fail_under:g}\n")
        return EXIT_FAILED
    return EXIT_OK


def run_score(args: argparse.Namespace) -> int:
    try:
        config = build_config(args)
        tools = read_catalog(getattr(args, "tools", None))
        for path in args.paths:  # fail on a missing file before any output
            if not Path(path).is_file():
                raise InputError(str(path), "no such file")
        engine = build_engine(config, catalog=tools, judge=judge_from_env())
        if args.format == "jsonl":
            tally = stream_jsonl(engine, args.paths, sys.stdout)
        else:
            tally = write_all(engine, args.paths, args.format, sys.stdout)
    except (InputError, ConfigFileError) as exc:
        return error("score", exc)
    return gate(tally, args.fail_under)
