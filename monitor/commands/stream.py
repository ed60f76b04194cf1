"""`aem run`, `aem replay` and `aem demo`."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import structlog
from pydantic import ValidationError

from monitor.sources.files import InputError, read_dialogs, validation_error
from monitor.stream.security import SaslMechanism, SecurityProtocol

log = structlog.get_logger(__name__)


def add_kafka_security(parser: argparse.ArgumentParser) -> None:
    """Flags of the `kafka` settings section (also AEM_KAFKA_* and the config file's `kafka:`)."""
    group = parser.add_argument_group("Kafka security (docs/operating.md)")
    group.add_argument("--security-protocol", choices=[p.value for p in SecurityProtocol])
    group.add_argument("--sasl-mechanism", choices=[m.value for m in SaslMechanism])
    group.add_argument("--sasl-username")
    group.add_argument(
        "--sasl-password", help="visible in the process list: prefer AEM_KAFKA_SASL_PASSWORD or the config file"
    )
    group.add_argument("--ssl-cafile", help="CA bundle that signs the brokers' certificates")
    group.add_argument("--ssl-certfile", help="client certificate (mutual TLS)")
    group.add_argument("--ssl-keyfile", help="private key of the client certificate")


def kafka_overrides(args: argparse.Namespace) -> dict[str, Any]:
    names = ["security_protocol", "sasl_mechanism", "sasl_username", "sasl_password"]
    names += ["ssl_cafile", "ssl_certfile", "ssl_keyfile"]
    return {name: getattr(args, name) for name in names}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="the streaming monitor: score trace events from Kafka, export metrics")
    run.add_argument("--bootstrap-servers", help="Kafka bootstrap servers (env AEM_BOOTSTRAP_SERVERS)")
    run.add_argument("--topic", help="trace topic (default aem.traces; env AEM_TOPIC)")
    run.add_argument("--verdict-topic", help="verdict topic (default aem.verdicts)")
    run.add_argument("--dlq-topic", help="dead-letter topic (default aem.traces.dlq)")
    run.add_argument("--group-id", help="consumer group (default aem-monitor; env AEM_GROUP_ID)")
    run.add_argument("--metrics-port", type=int, help="port of /metrics (default 9464; 0 = any free port)")
    run.add_argument("--reference", action="append", help="golden dialogs for reference_id lookups (repeatable)")
    run.add_argument("--tools", help="tool catalog for judge-only turns")
    run.add_argument("--idle-timeout", type=float, dest="idle_timeout_s", help="seconds before an idle dialog ends")
    run.add_argument("--config", type=Path, help="YAML/JSON config file (monitor and scoring sections)")
    run.add_argument(
        "--input-format",
        choices=["aem", "otlp_json", "otlp_proto"],
        help="what the topic carries: aem trace events (default) or OTLP GenAI spans (docs/otlp.md)",
    )
    run.add_argument(
        "--broker-unreachable-exit",
        type=float,
        dest="broker_unreachable_exit_s",
        help="exit non-zero after this many seconds without the broker (default 300; 0 = never)",
    )
    run.add_argument("--dlq-payload", help="what the DLQ keeps of a rejected event: full, truncate:N or redact")
    add_kafka_security(run)
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="publish dialog files as trace events")
    replay.add_argument("paths", nargs="*", metavar="PATH")
    replay.add_argument("--sample", action="store_true", help="publish the bundled sample traffic")
    replay.add_argument("--bootstrap-servers", help="Kafka bootstrap servers (env AEM_BOOTSTRAP_SERVERS)")
    replay.add_argument("--config", type=Path, help="config file whose bootstrap_servers and kafka section to use")
    replay.add_argument("--topic", default="aem.traces")
    replay.add_argument("--rate", type=float, help="events per second (default: as fast as possible)")
    replay.add_argument("--repeat", type=int, default=1, help="publish each dialog N times as new conversations")
    replay.add_argument("--release", help="override the release of every dialog")
    replay.add_argument(
        "--format",
        choices=["aem", "otlp_json", "otlp_proto"],
        default="aem",
        help="aem trace events (default), or each dialog as a trace of OpenTelemetry GenAI spans in OTLP",
    )
    add_kafka_security(replay)
    replay.set_defaults(func=cmd_replay)

    demo = sub.add_parser("demo", help="local demo: embedded broker, sample traffic, monitor, /metrics, live view")
    demo.add_argument("--duration", type=float, help="stop after this many seconds (default: until Ctrl-C)")
    demo.add_argument("--metrics-port", type=int, default=0, help="port of /metrics (default: a free port)")
    demo.add_argument("--rate", type=float, default=40.0, help="sample events per second (default 40)")
    demo.add_argument("--refresh", type=float, default=2.0, help="seconds between view refreshes")
    demo.set_defaults(func=cmd_demo)


def _install_stop(stop: Any) -> None:
    def handler(signum: int, frame: Any) -> None:
        log.info("signal received; stopping", signal=signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def cmd_run(args: argparse.Namespace) -> int:
    from monitor.stream.settings import load_settings
    from monitor.wiring import build_monitor

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
        "broker_unreachable_exit_s": args.broker_unreachable_exit_s,
        "dlq_payload": args.dlq_payload,
        "kafka": kafka_overrides(args),
        "input_format": args.input_format,
    }
    try:
        settings = load_settings(args.config, overrides=overrides)
        monitor = build_monitor(settings)
    except ValidationError as exc:
        sys.stderr.write(f"aem run: error: {validation_error(str(args.config or 'settings'), None, exc)}\n")
        return 2
    except InputError as exc:
        sys.stderr.write(f"aem run: error: {exc}\n")
        return 2
    port = monitor.serve_metrics()
    sys.stderr.write(f"aem run: metrics on http://{settings.metrics_host}:{port}/metrics\n")
    _install_stop(monitor.stop)
    try:
        monitor.run()
    except (RuntimeError, TimeoutError) as exc:  # start-up problems, or the broker gone for too long
        sys.stderr.write(f"aem run: error: {exc}\n")
        return 2
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from monitor.demo.traffic import sample_dialogs
    from monitor.models.dialog import Dialog
    from monitor.stream.kafka_io import make_producer
    from monitor.stream.replay import dialog_events, publish
    from monitor.stream.settings import load_cluster

    try:
        cluster = load_cluster(
            args.config, overrides={"bootstrap_servers": args.bootstrap_servers, "kafka": kafka_overrides(args)}
        )
        dialogs = [d for path in args.paths for d in read_dialogs(path)]
    except ValidationError as exc:
        sys.stderr.write(f"aem replay: error: {validation_error(str(args.config or 'settings'), None, exc)}\n")
        return 2
    except InputError as exc:
        sys.stderr.write(f"aem replay: error: {exc}\n")
        return 2
    if args.sample:
        dialogs += [Dialog.model_validate(d) for d in sample_dialogs()]
    if not dialogs:
        sys.stderr.write("aem replay: error: give dialog files or --sample\n")
        return 2

    def events() -> Any:
        for round_no in range(args.repeat):
            for dialog in dialogs:
                cid = dialog.dialog_id if args.repeat == 1 else f"{dialog.dialog_id}#{round_no}"
                yield from dialog_events(dialog, conversation_id=cid, release=args.release)

    producer = make_producer(cluster, client_id="aem-replay")
    try:
        if args.format != "aem":
            return _replay_otlp(args, producer, dialogs)
        sent = publish(producer, args.topic, events(), rate=args.rate)
    finally:
        producer.close(timeout=10)
    sys.stderr.write(f"aem replay: published {sent} events to {args.topic}\n")
    return 0


def _replay_otlp(args: argparse.Namespace, producer: Any, dialogs: list[Any]) -> int:
    """Each dialog as one trace of GenAI spans (docs/otlp.md), as OTLP batches of the chosen encoding."""
    from monitor.stream.otlp import publish_otlp

    pairs = (
        (dialog, dialog.dialog_id if args.repeat == 1 else f"{dialog.dialog_id}#{round_no}")
        for round_no in range(args.repeat)
        for dialog in dialogs
    )
    sent = publish_otlp(producer, args.topic, pairs, args.format, release=args.release, rate=args.rate)
    sys.stderr.write(f"aem replay: published {sent} {args.format} batches to {args.topic}\n")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from monitor.demo.run import run_demo

    stop = threading.Event()
    _install_stop(stop.set)
    try:
        return run_demo(args.duration, args.metrics_port, args.rate, args.refresh, stop)
    except (InputError, ValidationError) as exc:
        sys.stderr.write(f"aem demo: error: {exc}\n")
        return 2
