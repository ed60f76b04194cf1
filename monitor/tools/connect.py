"""Is a broker there? One bounded check before a command starts its real work."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import structlog
from kafka import KafkaAdminClient
from kafka.errors import KafkaError, KafkaTimeoutError

from monitor.cluster import KafkaClient, client_kwargs

log = structlog.get_logger(__name__)

DEFAULT_CONNECT_TIMEOUT_S = 10.0


class BrokerUnreachable(RuntimeError):
    """No broker answered at the bootstrap address within the timeout."""

    def __init__(self, bootstrap: str, timeout_s: float, cause: str = "") -> None:
        self.bootstrap, self.timeout_s = bootstrap, timeout_s
        detail = f" ({cause})" if cause else ""
        super().__init__(f"no Kafka broker reachable at {bootstrap} within {timeout_s:g} s{detail}")


class _Quiet:
    """Silences kafka-python's own retry warnings while a check runs: the caller reports the outcome once."""

    def __enter__(self) -> None:
        self.logger = logging.getLogger("kafka")
        self.level = self.logger.level
        self.logger.setLevel(logging.CRITICAL)

    def __exit__(self, *exc: object) -> None:
        self.logger.setLevel(self.level)


def check_broker(
    bootstrap: str | KafkaClient, timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S, **client_options: Any
) -> list[str]:
    """Connect to `bootstrap` and list its topics, or raise BrokerUnreachable within about `timeout_s`.

    `client_options` are passed to kafka-python (e.g. security settings).
    """
    timeout_ms = max(100, int(timeout_s * 1000))
    admin = None
    try:
        with _Quiet():
            admin = KafkaAdminClient(
                **client_kwargs(bootstrap),
                client_id="aem-check",
                bootstrap_timeout_ms=timeout_ms,
                request_timeout_ms=timeout_ms,
                **client_options,
            )
            topics = sorted(admin.list_topics())
    except KafkaTimeoutError:
        raise BrokerUnreachable(str(bootstrap), timeout_s) from None
    except KafkaError as exc:
        raise BrokerUnreachable(str(bootstrap), timeout_s, type(exc).__name__) from None
    except (OSError, ValueError) as exc:  # a malformed address or a resolver failure
        raise BrokerUnreachable(str(bootstrap), timeout_s, str(exc)) from None
    finally:
        if admin is not None:
            with contextlib.suppress(Exception):
                admin.close()
    log.info("broker_connected", bootstrap=str(bootstrap), topics=len(topics))  # the address, not the settings
    return topics
