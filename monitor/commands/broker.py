"""`aem broker`: the embedded Kafka-protocol broker (Tansu, memory only) in the foreground."""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from kafka.errors import KafkaError

from monitor.cluster import Topics, ensure_topics
from monitor.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    add_command,
    error,
    exit_codes,
    install_stop,
    port,
    positive_int,
)
from monitor.tools.broker import TansuBroker

EPILOG = """\
Tansu keeps everything in memory: topics and records are gone when it stops. The monitor creates its
state topic (aem.state.<group_id>) itself. Any Kafka works as well; this is for trying things out.

""" + exit_codes(
    "0  stopped by Ctrl-C, SIGTERM or SIGHUP; the broker process stops with it",
    "1  the broker process died",
    "2  the port is in use, or the broker did not start",
)


def add_parser(sub: Any) -> None:
    p = add_command(
        sub, "broker", "run the embedded broker (Tansu) in the foreground", EPILOG, cmd_broker, default_log_level="info"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=port, default=9092, help="port to listen on (0 = any free port)")
    p.add_argument("--partitions", type=positive_int, default=3, help="partitions of the topics it creates")
    p.add_argument(
        "--topic",
        action="append",
        dest="topics",
        metavar="NAME",
        help="topics to create (repeatable; default: aem.traces, aem.verdicts, aem.traces.dlq)",
    )
    p.add_argument("--log-file", type=Path, help="write the broker's own log here (default: discarded)")


def port_in_use(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, or None when it can."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def cmd_broker(args: argparse.Namespace) -> int:
    if args.port:
        busy = port_in_use(args.host, args.port)
        if busy is not None:
            return error("broker", f"cannot listen on {args.host}:{args.port}: {busy}; pick another with --port")
    topics = args.topics or [Topics().traces, Topics().verdicts, Topics().dlq]
    broker = TansuBroker(host=args.host, port=args.port, log_path=args.log_file)
    try:
        broker.start()
    except (OSError, TimeoutError) as exc:
        return error("broker", f"the broker did not start on {args.host}:{args.port or 'a free port'}: {exc}")
    try:
        try:
            ensure_topics(broker.bootstrap, topics, partitions=args.partitions, timeout=20)
        except KafkaError as exc:
            return error("broker", f"creating topics on {broker.bootstrap} failed: {exc}")
        out = sys.stdout
        out.write(f"bootstrap: {broker.bootstrap}\n")
        out.write(f"topics: {', '.join(topics)} ({args.partitions} partitions each)\n")
        out.write("memory only: everything is lost when it stops; Ctrl-C to stop\n")
        out.flush()
        stop = threading.Event()
        install_stop(stop.set)
        while not stop.wait(0.5):
            if broker.process is None or broker.process.poll() is not None:
                return error("broker", f"the broker process on {broker.bootstrap} exited", EXIT_FAILED)
        return EXIT_OK
    finally:
        broker.stop()
