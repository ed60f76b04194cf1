"""How the monitor reaches a Kafka cluster: security protocol, SASL and TLS, as kafka-python client options.

:func:`client_kwargs` is the one place settings become kafka-python keyword arguments; every consumer,
producer and admin client of every command is built from it. Secrets are :class:`~pydantic.SecretStr`
(``**********`` in reprs and logs) and only unwrapped here, into the client options. The clients themselves,
with the options every AEM client shares, come from here too: :func:`make_consumer`, :func:`make_producer`
(with :class:`CachedKeyPartitioner`) and :func:`ensure_topics`.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Self

import structlog
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError
from kafka.partitioner import DefaultPartitioner
from kafka.partitioner.default import murmur2
from pydantic import AfterValidator, BaseModel, ConfigDict, SecretStr, model_validator

log = structlog.get_logger(__name__)

DEFAULT_KAFKA_PORT = 9092


def bootstrap_addresses(servers: str) -> list[tuple[str, int]]:
    """The (host, port) pairs of a comma-separated bootstrap list (`host:port`, `host` for port 9092,
    `[::1]:9092`); ValueError naming the entry that is not one."""
    entries = [entry.strip() for entry in servers.split(",")]
    if not any(entries):
        raise ValueError("no bootstrap address: give host:port, e.g. 127.0.0.1:9092")
    out = []
    for entry in entries:
        host, colon, port = entry.rpartition(":") if entry.count(":") == 1 or entry.startswith("[") else ("", "", "")
        host, port = (host.strip("[]"), port) if colon else (entry, str(DEFAULT_KAFKA_PORT))
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{entry!r} is not host:port (a host name or address, a port from 1 to 65535)")
        out.append((host, int(port)))
    return out


def _checked_servers(servers: str) -> str:
    bootstrap_addresses(servers)
    return servers


# A bootstrap list as settings and flags give it, checked when read (a typo fails at once, not after a timeout).
BootstrapServers = Annotated[str, AfterValidator(_checked_servers)]


class SecurityProtocol(StrEnum):
    PLAINTEXT = "PLAINTEXT"
    SSL = "SSL"
    SASL_PLAINTEXT = "SASL_PLAINTEXT"
    SASL_SSL = "SASL_SSL"


class SaslMechanism(StrEnum):
    """The SASL mechanisms kafka-python supports with a username and password."""

    PLAIN = "PLAIN"
    SCRAM_SHA_256 = "SCRAM-SHA-256"
    SCRAM_SHA_512 = "SCRAM-SHA-512"


class KafkaSecurity(BaseModel):
    """The ``kafka`` settings section (env ``AEM_KAFKA_<FIELD>``, flags ``--security-protocol`` …)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    security_protocol: SecurityProtocol = SecurityProtocol.PLAINTEXT
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_cafile: Path | None = None  # CA bundle that signs the brokers' certificates
    ssl_certfile: Path | None = None  # client certificate (mutual TLS)
    ssl_keyfile: Path | None = None  # its private key
    ssl_password: SecretStr | None = None  # passphrase of the private key
    ssl_check_hostname: bool = True

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol in (SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL)

    @property
    def uses_tls(self) -> bool:
        return self.security_protocol in (SecurityProtocol.SSL, SecurityProtocol.SASL_SSL)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.uses_sasl:
            missing = [
                name
                for name in ("sasl_mechanism", "sasl_username", "sasl_password")
                if getattr(self, name) in (None, "")
            ]
            if missing:
                raise ValueError(f"security_protocol {self.security_protocol} needs {', '.join(missing)}")
        elif self.sasl_mechanism is not None or self.sasl_username or self.sasl_password is not None:
            raise ValueError(f"SASL settings given but security_protocol is {self.security_protocol}")
        tls_files = {"ssl_cafile": self.ssl_cafile, "ssl_certfile": self.ssl_certfile, "ssl_keyfile": self.ssl_keyfile}
        given = {name: path for name, path in tls_files.items() if path is not None}
        if given and not self.uses_tls:
            raise ValueError(f"{', '.join(given)} given but security_protocol is {self.security_protocol}")
        for name, path in given.items():
            if not path.is_file():
                raise ValueError(f"{name}: no such file: {path}")
        if self.ssl_keyfile is not None and self.ssl_certfile is None:
            raise ValueError("ssl_keyfile given without ssl_certfile")
        return self


def security_kwargs(security: KafkaSecurity) -> dict[str, Any]:
    """The kafka-python options of a security section (secrets unwrapped; never log the result)."""
    out: dict[str, Any] = {"security_protocol": security.security_protocol.value}
    if security.uses_sasl:
        assert security.sasl_mechanism is not None and security.sasl_password is not None
        out["sasl_mechanism"] = security.sasl_mechanism.value
        out["sasl_plain_username"] = security.sasl_username
        out["sasl_plain_password"] = security.sasl_password.get_secret_value()
    if security.uses_tls:
        out["ssl_check_hostname"] = security.ssl_check_hostname
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            path = getattr(security, name)
            if path is not None:
                out[name] = str(path)
        if security.ssl_password is not None:
            out["ssl_password"] = security.ssl_password.get_secret_value()
    return out


class KafkaClient(BaseModel):
    """A cluster address and how to authenticate to it: what every Kafka client of a command is built from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bootstrap_servers: BootstrapServers
    security: KafkaSecurity = KafkaSecurity()

    def __str__(self) -> str:  # what logs show: the address, never a secret
        return f"{self.bootstrap_servers} ({self.security.security_protocol})"


def client_kwargs(cluster: str | KafkaClient) -> dict[str, Any]:
    """kafka-python keyword arguments for a consumer, producer or admin client of ``cluster``.

    A bare ``host:port`` string means PLAINTEXT (the embedded broker of tests and the demo).
    """
    if isinstance(cluster, str):
        return {"bootstrap_servers": cluster}
    return {"bootstrap_servers": cluster.bootstrap_servers, **security_kwargs(cluster.security)}


# Against Tansu a default group join takes ~23 s; a 6 s session brings it to ~3 s (and suits Kafka too): a first
# join waits half the session timeout for other members (2 s: 1.1 s).
SESSION_TIMEOUT_MS = 6000


def group_timeouts(session_timeout_ms: int = SESSION_TIMEOUT_MS) -> dict[str, int]:
    """A group member's session timeout and heartbeat interval: a heartbeat every sixth of the session, at most
    one a second (Kafka asks for three or more a session)."""
    return {"session_timeout_ms": session_timeout_ms, "heartbeat_interval_ms": min(1000, session_timeout_ms // 6)}


@dataclass(frozen=True)
class Topics:
    traces: str = "aem.traces"
    verdicts: str = "aem.verdicts"
    dlq: str = "aem.traces.dlq"


def ensure_topics(
    bootstrap: str | KafkaClient,
    names: Iterable[str],
    partitions: int = 3,
    timeout: float = 30.0,
    configs: dict[str, str] | None = None,
) -> None:
    """Create the topics that do not exist yet (idempotent)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            admin = KafkaAdminClient(**client_kwargs(bootstrap), client_id="aem-admin", request_timeout_ms=10000)
            break
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    try:
        existing = set(admin.list_topics())
        new = [
            NewTopic(n, num_partitions=partitions, replication_factor=1, topic_configs=configs or {})
            for n in names
            if n not in existing
        ]
        if new:
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(new)
            log.info("topics_created", topics=[t.name for t in new], partitions=partitions)
    finally:
        admin.close()


def make_consumer(
    bootstrap: str | KafkaClient,
    topics: Sequence[str],
    group_id: str | None,
    client_id: str = "aem-monitor",
    **overrides: object,
) -> KafkaConsumer:
    options: dict[str, object] = {
        **client_kwargs(bootstrap),
        "group_id": group_id,
        "client_id": client_id,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "max_poll_records": 500,
        "max_poll_interval_ms": 300000,
        **(group_timeouts() if group_id else {}),
    }
    options.update(overrides)
    consumer = KafkaConsumer(**options)
    if topics:
        consumer.subscribe(list(topics))
    return consumer


def make_producer(bootstrap: str | KafkaClient, client_id: str = "aem-monitor", **overrides: object) -> KafkaProducer:
    options: dict[str, object] = {
        **client_kwargs(bootstrap),
        "client_id": client_id,
        "acks": "all",
        # A poll's verdicts go out in a few requests rather than one every 5 ms (~15-20% less CPU per record
        # in benchmarks/stream_throughput.py's runs); a commit flushes at once whatever the linger.
        "linger_ms": 20,
        "retries": 2**31 - 1,
        "delivery_timeout_ms": 24 * 3600 * 1000,  # never drop a verdict while the broker is away
        "batch_size": 262144,
        "max_in_flight_requests_per_connection": 1,  # keep verdict order across retries
        "partitioner": CachedKeyPartitioner(),  # Kafka's default choice, each key hashed once
    }
    options.update(overrides)
    return KafkaProducer(**options)


# The default partitioner with the key hash remembered: the same partitions, less work per record.
# kafka-python's ``DefaultPartitioner`` hashes every keyed record with a pure-Python murmur2 (Kafka's own
# choice of partition, so consumers in any language agree). The monitor sends several records per
# conversation under one key (turn verdicts, chain messages, the dialog summary), so the hash of a key is
# kept in a bounded LRU and each record only maps it onto the topic's partitions.
KEY_HASHES = 65_536  # distinct keys whose hash is kept


@lru_cache(maxsize=KEY_HASHES)
def key_hash(key: bytes) -> int:
    """murmur2 of ``key`` as Kafka's default partitioner uses it (non-negative)."""
    return int(murmur2(key)) & 0x7FFFFFFF


class CachedKeyPartitioner(DefaultPartitioner):
    """``DefaultPartitioner``'s choice of partition, computing each key's hash once."""

    def partition(
        self, topic: str, key: Any, serialized_key: bytes | None, value: Any, serialized_value: Any, cluster: Any
    ) -> int:
        partitions = cluster.partitions_for_topic(topic)
        if partitions is None:
            raise ValueError(f"Topic {topic} not found in ClusterMetadata")
        ordered = sorted(partitions)
        if serialized_key is not None:
            return ordered[key_hash(bytes(serialized_key)) % len(ordered)]
        available = list(cluster.available_partitions_for_topic(topic))
        return random.choice(available or ordered)
