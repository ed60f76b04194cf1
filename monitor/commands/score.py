"""`aem score`: the offline scorer and CI gate."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import structlog
from pydantic import ValidationError

from monitor.report import render_table, summarize
from monitor.scoring import ScoringConfig
from monitor.scoring.config import load_config_file
from monitor.sources.files import InputError, read_dialogs, validation_error
from monitor.wiring import build_engine, judge_from_env, read_catalog

log = structlog.get_logger(__name__)


def build_config(args: argparse.Namespace) -> ScoringConfig:
    data: dict[str, Any] = {}
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
        raise validation_error(str(args.config or "command line"), None, exc) from None


def run_score(args: argparse.Namespace) -> int:
    try:
        config = build_config(args)
        tools = read_catalog(getattr(args, "tools", None))
        dialogs = [d for path in args.paths for d in read_dialogs(path)]
    except InputError as exc:
        sys.stderr.write(f"aem score: error: {exc}\n")
        return 2
    engine = build_engine(config, catalog=tools, judge=judge_from_env())
    results = engine.score_dialogs(dialogs)
    summary = summarize(results)
    out = sys.stdout
    if args.format == "jsonl":
        for result in results:
            out.write(result.model_dump_json() + "\n")
    elif args.format == "json":
        out.write(
            json.dumps(
                {"dialogs": [r.model_dump(mode="json") for r in results], "summary": summary},
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
    else:
        out.write(render_table(results, summary) + "\n")
    rate = summary["overall"]["success_rate"]
    log.info("scored", dialogs=len(results), success_rate=rate)
    if args.fail_under is not None and (rate is None or rate < args.fail_under):
        sys.stderr.write(f"aem score: success rate {rate} is below --fail-under {args.fail_under}\n")
        return 1
    return 0
