"""`aem` command line: score (offline), run (streaming monitor), replay (traffic), demo (local stack)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from monitor.logs import configure_logging

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _score_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score annotated dialog files (JSON/JSONL) offline")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=["jsonl", "json", "table"], default="jsonl")
    p.add_argument("--threshold", type=float, help="semantic equivalence threshold (default 0.5)")
    p.add_argument("--pass-bar", type=float, help="success_rate a dialog needs for test_pass (default 1.0)")
    p.add_argument("--fail-under", type=float, help="exit 1 when the overall success rate is below this")
    p.add_argument("--config", type=Path, help="YAML/JSON config file (scoring section or top level)")
    p.add_argument("--tools", type=Path, help="tool catalog (JSON list of {tool_id, action, parameters})")
    p.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    from monitor.commands.score import run_score

    return run_score(args)


def _stream_commands(sub: argparse._SubParsersAction) -> None:
    try:
        from monitor.commands import stream as stream_commands
    except ImportError:  # pragma: no cover - the streaming package is optional at import time
        return
    stream_commands.add_parsers(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aem", description="AEM Monitor: turn-level agent correctness")
    parser.add_argument("--log-level", default=os.environ.get("AEM_LOG_LEVEL", "warning"))
    parser.add_argument("--json-logs", action="store_true", default=os.environ.get("AEM_JSON_LOGS") == "1")
    sub = parser.add_subparsers(dest="command", required=True)
    _score_parser(sub)
    _stream_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log_level, args.json_logs)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
