"""`aem run`: the streaming monitor."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn

from kafka.errors import KafkaError
from pydantic import ValidationError

from monitor.commands.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_command,
    add_connect_timeout,
    add_kafka_security,
    error,
    exit_codes,
    install_stop,
    kafka_overrides,
    port,
    positive_float,
    reach_broker,
)
from monitor.models.dialog import first_error
from monitor.scoring.config import ConfigFileError, load_config_file
from monitor.sources.files import InputError, settings_error, validation_error
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings, load_settings
from monitor.wiring import build_monitor

EPILOG = """\
Settings come from defaults < --config file (monitor: section) < AEM_* environment < flags.
At the default log level (info) it logs the broker connection, the group join, partitions
assigned and revoked, and a progress line every 30 s.

""" + exit_codes(
    "0  stopped by SIGTERM, Ctrl-C or SIGHUP after flushing and committing",
    "2  bad settings or input files, or no broker reachable within --connect-timeout",
)


def _default(name: str) -> Any:
    return MonitorSettings.model_fields[name].default


def add_parser(sub: Any) -> None:
    p = add_command(
        sub,
        "run",
        "the streaming monitor: score trace events from Kafka, write verdicts, export metrics",
        EPILOG,
        cmd_run,
        default_log_level="info",
    )
    p.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help=f"Kafka bootstrap servers (default: {_default('bootstrap_servers')}; env AEM_BOOTSTRAP_SERVERS)",
    )
    p.add_argument("--topic", help=f"trace topic (default: {_default('topic')}; env AEM_TOPIC)")
    p.add_argument("--verdict-topic", help=f"verdict topic (default: {_default('verdict_topic')})")
    p.add_argument("--dlq-topic", help=f"dead-letter topic (default: {_default('dlq_topic')})")
    p.add_argument("--group-id", help=f"consumer group (default: {_default('group_id')}; env AEM_GROUP_ID)")
    p.add_argument(
        "--metrics-port", type=port, help=f"port of /metrics (default: {_default('metrics_port')}; 0 = any free port)"
    )
    p.add_argument("--reference", action="append", help="golden dialogs for reference_id lookups (repeatable)")
    p.add_argument("--tools", help="tool catalog for judge-only turns (default: none)")
    p.add_argument(
        "--idle-timeout",
        type=positive_float,
        dest="idle_timeout_s",
        metavar="S",
        help=f"seconds of silence before a conversation ends (default: {_default('idle_timeout_s'):g})",
    )
    p.add_argument("--config", type=Path, help="YAML/JSON config file (monitor and scoring sections)")
    p.add_argument(
        "--input-format",
        choices=["aem", "otlp_json", "otlp_proto"],
        help="what the topic carries: aem trace events (default) or OTLP GenAI spans (docs/otlp.md)",
    )
    add_connect_timeout(p)
    p.add_argument(
        "--broker-unreachable-exit",
        type=float,
        dest="broker_unreachable_exit_s",
        metavar="S",
        help="exit 2 after S seconds without the broker once running (default: 300; 0 = never)",
    )
    p.add_argument(
        "--dlq-payload", help="what the DLQ keeps of a rejected event: full, truncate:N or redact (default: full)"
    )
    add_kafka_security(p)


def cmd_run(args: argparse.Namespace) -> int:
    overrides = {
        "bootstrap_servers": args.bootstrap_servers,
        "topic": args.topic,
        "verdict_topic": args.verdict_topic,
        "dlq_topic": args.dlq_topic,
        "group_id": args.group_id,
        "metrics_port": args.metrics_port,
        "reference": args.reference,
        "tools": args.tools,
        "idle_timeout_s": args.idle_timeout_s,
        "input_format": args.input_format,
        "broker_unreachable_exit_s": args.broker_unreachable_exit_s,
        "dlq_payload": args.dlq_payload,
        "kafka": kafka_overrides(args),
    }
    try:
        settings = load_settings(args.config, overrides=overrides)
    except ValidationError as exc:
        beside = first_error(exc)["loc"][:1] == ("scoring",)  # a file's scoring section sits beside monitor
        section = "monitor" if args.config and "monitor" in load_config_file(args.config) and not beside else None
        return error("run", settings_error(str(args.config or "settings"), exc, section))
    except (InputError, ConfigFileError) as exc:
        return error("run", exc)
    if reach_broker("run", settings.cluster, args.connect_timeout) is None:
        return EXIT_USAGE
    try:
        monitor = build_monitor(settings)
    except ValidationError as exc:
        return error("run", validation_error(str(args.config or "settings"), None, exc))
    except InputError as exc:
        return error("run", exc)
    try:
        port = monitor.serve_metrics()
    except OSError as exc:  # the port is taken (another `aem run` on this host) or not ours to bind
        return error("run", exc)
    sys.stderr.write(f"aem run: metrics on http://{settings.metrics_host}:{port}/metrics\n")
    install_stop(monitor.stop)
    returned = threading.Event()
    threading.Thread(target=_exit_if_stuck, args=(monitor, returned), name="aem-exit-watchdog", daemon=True).start()
    try:
        monitor.run()
    except (RuntimeError, TimeoutError, KafkaError) as exc:  # start-up problems: topics, partitions, broker
        return error("run", exc)
    finally:
        returned.set()
    _exit_at_once(EXIT_OK)


def _exit_at_once(code: int) -> NoReturn:
    """The monitor stopped: its output is flushed and its offsets committed, its clients closed. Exit without the
    interpreter's teardown, which frees the models' native memory and threads one object at a time (3 s on an
    idle 2-core host, 6 s on a loaded one): a SIGTERM is honoured within seconds, not after that."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


GIVE_UP_GRACE_S = 10.0


def _exit_if_stuck(monitor: Monitor, returned: threading.Event) -> None:
    """Once the monitor has given up on the broker, `run` must return within GIVE_UP_GRACE_S; a kafka-python
    call blocked in a bootstrap (up to its request timeout, 30 s) cannot be interrupted, so past the grace the
    process exits here. Nothing is lost: with the broker gone nothing was committed, the events are redelivered."""
    while not returned.wait(0.5):
        if monitor.failure is not None:
            if not returned.wait(GIVE_UP_GRACE_S):
                error("run", f"{monitor.failure} (shutdown still blocked after {GIVE_UP_GRACE_S:g}s: exiting)")
                sys.stderr.flush()
                os._exit(EXIT_USAGE)
            return
