"""`aem` command line: parses arguments and dispatches to one module per command in monitor/commands/."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from monitor.commands import broker, calibrate, compare, demo, inspect, redrive, replay, review, run, score, tail
from monitor.commands.common import EXIT_INTERRUPTED, HelpFormatter, exit_codes
from monitor.logs import configure_logging

COMMANDS = (score, review, calibrate, run, replay, demo, broker, tail, inspect, redrive, compare)
LOG_LEVELS = ("debug", "info", "warning", "error")


def package_version() -> str:
    try:
        return version("aem-monitor")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aem",
        description="AEM Monitor: turn-level correctness of multi-turn LLM agents, offline and streaming",
        epilog=exit_codes("each command lists its own (aem COMMAND --help); 130 = interrupted"),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"aem {package_version()}")
    parser.add_argument(
        "--log-level",
        type=str.lower,
        choices=LOG_LEVELS,
        default=os.environ.get("AEM_LOG_LEVEL"),
        help="log level (env AEM_LOG_LEVEL; default: info for run, broker and demo, warning otherwise)",
    )
    parser.add_argument(
        "--json-logs",
        action="store_true",
        default=os.environ.get("AEM_JSON_LOGS") == "1",
        help="logs as JSON lines (env AEM_JSON_LOGS=1)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # a typo in a command's flag gets that command's usage, not the top-level one
        args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    level = args.log_level or getattr(args, "default_log_level", "warning")
    configure_logging(level, args.json_logs)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
