"""What every command shares: help that shows defaults and exit codes, cluster flags, a fail-fast check."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import structlog
from kafka.errors import KafkaError
from pydantic import Field, ValidationError
from pydantic_settings import SettingsConfigDict

from monitor.cluster import BootstrapServers, KafkaClient, KafkaSecurity, SaslMechanism, SecurityProtocol
from monitor.scoring.config import ConfigFileError
from monitor.settings_sources import LayeredSettings
from monitor.sources.files import validation_error
from monitor.stream.settings import load_layered
from monitor.tools.connect import DEFAULT_CONNECT_TIMEOUT_S, BrokerUnreachable, check_broker
from monitor.tools.topic_reader import TopicMissing, TopicReader

log = structlog.get_logger(__name__)

N = TypeVar("N", int, float)
T = TypeVar("T")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEFAULT_BOOTSTRAP = "127.0.0.1:9092"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's line breaks and appends `(default: X)` to options that have a real default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def exit_codes(*lines: str) -> str:
    """An epilog listing a command's exit codes."""
    return "exit codes:\n" + "\n".join(f"  {line}" for line in lines)


def add_command(
    sub: Any, name: str, help_text: str, epilog: str, func: Callable[[argparse.Namespace], int], **defaults: Any
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=help_text, epilog=epilog, formatter_class=HelpFormatter
    )
    parser.set_defaults(func=func, command_parser=parser, **defaults)
    return parser


def env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def add_connect_timeout(parser: argparse.ArgumentParser) -> None:
    """--connect-timeout (env AEM_CONNECT_TIMEOUT_S)."""
    parser.add_argument(
        "--connect-timeout",
        type=positive_float,
        default=env_float("AEM_CONNECT_TIMEOUT_S", DEFAULT_CONNECT_TIMEOUT_S),
        metavar="S",
        help="give up with exit 2 when no broker answers within S seconds (env AEM_CONNECT_TIMEOUT_S)",
    )


def add_broker_args(parser: argparse.ArgumentParser) -> None:
    """Where the cluster is and how to reach it, as `aem run` reads it: --bootstrap-servers, --connect-timeout,
    --config (its `monitor:` section's bootstrap_servers and `kafka:`) and the Kafka security flags."""
    parser.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help=f"Kafka bootstrap servers (default: {DEFAULT_BOOTSTRAP}; env AEM_BOOTSTRAP_SERVERS)",
    )
    add_connect_timeout(parser)
    parser.add_argument(
        "--config", type=Path, help="config file whose bootstrap_servers and kafka (security) settings to use"
    )
    add_kafka_security(parser)


class ClusterSettings(LayeredSettings):
    """Only where the cluster is and how to reach it: for commands that talk to Kafka without scoring."""

    model_config = SettingsConfigDict(
        env_prefix="AEM_", env_nested_delimiter="_", env_nested_max_split=1, extra="ignore"
    )

    bootstrap_servers: BootstrapServers = DEFAULT_BOOTSTRAP
    kafka: KafkaSecurity = Field(default_factory=KafkaSecurity)


def load_cluster(
    config_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> KafkaClient:
    """The cluster of a config file's monitor section, ``AEM_BOOTSTRAP_SERVERS``/``AEM_KAFKA_*`` and flags."""
    found = load_layered(ClusterSettings, config_file, environ, overrides)
    return KafkaClient(bootstrap_servers=found.bootstrap_servers, security=found.kafka)


def cluster_of(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> KafkaClient:
    """The cluster the flags of `add_broker_args` name, over AEM_* ``environ`` (the process's when None)
    over the --config file: the layering of `aem run`. Raises ValidationError, OSError or ValueError."""
    overrides = {"bootstrap_servers": args.bootstrap_servers, "kafka": kafka_overrides(args)}
    return load_cluster(args.config, environ=environ, overrides=overrides)


def connect(command: str, args: argparse.Namespace) -> KafkaClient | None:
    """`cluster_of` the arguments once a broker there answered, or None after printing one line saying
    why (the caller exits 2)."""
    try:
        cluster = cluster_of(args)
    except ValidationError as exc:
        error(command, validation_error(str(args.config or "settings"), None, exc))
        return None
    except ConfigFileError as exc:  # a missing, unreadable or malformed config file (names the file)
        error(command, exc)
        return None
    except (OSError, ValueError) as exc:
        error(command, f"{args.config}: {exc}")
        return None
    return cluster if reach_broker(command, cluster, args.connect_timeout) is not None else None


def read_topic(
    command: str, args: argparse.Namespace, topic: str, read: Callable[[TopicReader, threading.Event], T]
) -> T | None:
    """Connect (`connect`), open a reader on `topic` and run `read` with an event SIGTERM/Ctrl-C set;
    None after printing one line when no broker answered, the topic is missing or reading failed."""
    cluster = connect(command, args)
    if cluster is None:
        return None
    stop = threading.Event()
    install_stop(stop.set)
    with TopicReader(cluster, topic) as reader:
        try:
            return read(reader, stop)
        except TopicMissing as exc:
            error(command, f"{exc} on {cluster}")
        except KafkaError as exc:
            error(command, f"reading {topic} from {cluster} failed: {exc}")
    return None


def _number(text: str, convert: Callable[[str], N], noun: str) -> N:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None


def unit_interval(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    value = _number(text, float, "a number")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..1")
    return value


def positive_float(text: str) -> float:
    value = _number(text, float, "a number")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not above 0")
    return value


def positive_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is below 1")
    return value


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    value = _number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..65535")
    return value


def error(command: str, message: object, code: int = EXIT_USAGE) -> int:
    """One line on stderr, then the exit code."""
    sys.stderr.write(f"aem {command}: error: {message}\n")
    return code


def add_kafka_security(parser: argparse.ArgumentParser) -> None:
    """Flags of the `kafka` settings section (also AEM_KAFKA_* and the config file's `kafka:`)."""
    group = parser.add_argument_group("Kafka security (docs/operating.md)")
    group.add_argument(
        "--security-protocol", choices=[p.value for p in SecurityProtocol], help="(default: PLAINTEXT)"
    )
    group.add_argument("--sasl-mechanism", choices=[m.value for m in SaslMechanism])
    group.add_argument("--sasl-username")
    group.add_argument(
        "--sasl-password", help="visible in the process list: prefer AEM_KAFKA_SASL_PASSWORD or the config file"
    )
    group.add_argument("--ssl-cafile", help="CA bundle that signs the brokers' certificates")
    group.add_argument("--ssl-certfile", help="client certificate (mutual TLS)")
    group.add_argument("--ssl-keyfile", help="private key of the client certificate")


def kafka_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The `kafka` settings the security flags give (None where a flag is unset)."""
    names = ["security_protocol", "sasl_mechanism", "sasl_username", "sasl_password"]
    names += ["ssl_cafile", "ssl_certfile", "ssl_keyfile"]
    return {name: getattr(args, name) for name in names}


def reach_broker(command: str, bootstrap: str | KafkaClient, timeout_s: float) -> list[str] | None:
    """The broker's topics, or None after printing one line naming the address (the caller exits 2)."""
    try:
        return check_broker(bootstrap, timeout_s)
    except BrokerUnreachable as exc:
        error(command, f"{exc}; start one with `aem broker` or pass --bootstrap-servers")
        return None


def install_stop(stop: Callable[[], None]) -> None:
    """SIGTERM, SIGINT (Ctrl-C) and SIGHUP (the terminal closed) call `stop` (the command then finishes cleanly)."""

    def handler(signum: int, frame: Any) -> None:
        log.info("signal_received", signal=signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGHUP, handler)
