"""`aem demo`: embedded broker, sample traffic, the monitor, /metrics and a live view."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.commands.common import add_command, error, exit_codes, install_stop, port, positive_float
from monitor.demo.prometheus import RULES_DIR, PrometheusOptions, PrometheusUnavailable
from monitor.demo.run import DemoOptions, run_demo
from monitor.sources.files import InputError

EPILOG = """\
The view redraws in place on a terminal; without one it prints a summary line every few seconds.
The logs (the monitor's warnings about the sample's deliberately invalid events among them) go to a
file whose path is shown, so they never break the view.

""" + exit_codes(
    "0  stopped (Ctrl-C, SIGTERM, SIGHUP or --duration); the broker and Prometheus stop with it",
    "1  the monitor stopped unexpectedly (see the log file)",
    "2  the demo could not start",
)


def add_parser(sub: Any) -> None:
    p = add_command(
        sub,
        "demo",
        "local demo: embedded broker, sample traffic, monitor, /metrics, live view",
        EPILOG,
        cmd_demo,
        default_log_level="info",  # into the log file, never onto the view
    )
    p.add_argument("--duration", type=positive_float, help="stop after this many seconds (default: until Ctrl-C)")
    p.add_argument("--metrics-port", type=port, default=0, help="port of /metrics (0 = a free port)")
    p.add_argument("--rate", type=positive_float, default=40.0, help="sample events per second")
    p.add_argument("--refresh", type=positive_float, default=2.0, help="seconds between view refreshes")
    p.add_argument("--log-file", type=Path, help="where the logs go (default: aem-demo-<pid>.log in the temp dir)")
    p.add_argument(
        "--with-prometheus",
        action="store_true",
        help="also run Debian's prometheus on a free loopback port, scraping the demo with the project's rules",
    )
    p.add_argument(
        "--fast-alerts",
        action="store_true",
        help="with --with-prometheus: rules with every window divided by 60 (the regression alert fires in minutes)",
    )
    p.add_argument("--rules", type=Path, default=RULES_DIR, help="the rule files' folder")
    p.add_argument("--prometheus-port", type=port, default=0, help="port of that Prometheus (0 = a free port)")


def cmd_demo(args: argparse.Namespace) -> int:
    log_path = args.log_file or Path(tempfile.gettempdir()) / f"aem-demo-{os.getpid()}.log"
    if args.fast_alerts and not args.with_prometheus:
        return error("demo", "--fast-alerts needs --with-prometheus")
    prometheus = PrometheusOptions(args.rules, args.fast_alerts, args.prometheus_port) if args.with_prometheus else None
    options = DemoOptions(args.duration, args.metrics_port, args.rate, args.refresh, str(log_path), prometheus)
    stop = threading.Event()
    install_stop(stop.set)
    try:
        log_file = log_path.open("a", encoding="utf-8")
    except OSError as exc:
        return error("demo", f"cannot write the log file {log_path}: {exc.strerror or exc}")
    out = sys.stdout
    try:
        with log_file, contextlib.redirect_stderr(log_file):  # structlog and kafka-python write to sys.stderr
            return run_demo(options, stop, out)
    except (InputError, ValidationError, OSError, TimeoutError, PrometheusUnavailable) as exc:
        return error("demo", exc)
