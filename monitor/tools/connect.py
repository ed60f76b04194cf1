"""Is a broker there? One bounded check before a command starts its real work."""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from typing import Any

import structlog
from kafka import KafkaAdminClient
from kafka.errors import KafkaError, KafkaTimeoutError

from monitor.cluster import KafkaClient, bootstrap_addresses, client_kwargs

log = structlog.get_logger(__name__)

DEFAULT_CONNECT_TIMEOUT_S = 10.0


class BrokerUnreachable(RuntimeError):
    """No broker answered at the bootstrap address within the timeout."""

    def __init__(self, bootstrap: str, timeout_s: float, cause: str = "") -> None:
        """`timeout_s` 0: the broker refused at once (no wait)."""
        self.bootstrap, self.timeout_s = bootstrap, timeout_s
        within = f" within {timeout_s:g} s" if timeout_s else ""
        detail = (f" ({cause})" if timeout_s else f": {cause}") if cause else ""
        super().__init__(f"no Kafka broker reachable at {bootstrap}{within}{detail}")


class _Quiet:
    """Silences kafka-python's own retry warnings while a check runs: the caller reports the outcome once."""

    def __enter__(self) -> None:
        self.logger = logging.getLogger("kafka")
        self.level = self.logger.level
        self.logger.setLevel(logging.CRITICAL)

    def __exit__(self, *exc: object) -> None:
        self.logger.setLevel(self.level)


def _refused(bootstrap: str, timeout_s: float) -> str | None:
    """Why no bootstrap address takes a TCP connection at once (refused, not resolvable), or None when one
    does. Silence is not a refusal: an address that does not answer within `timeout_s` raises TimeoutError
    after that time, as the Kafka client would."""
    deadline = time.monotonic() + timeout_s
    reasons = []
    for host, port in bootstrap_addresses(bootstrap):
        try:
            with socket.create_connection((host, port), timeout=max(0.1, deadline - time.monotonic())):
                return None
        except TimeoutError:
            raise
        except OSError as exc:  # refused, unreachable network, unknown host: fail now, not after the timeout
            reasons.append(exc.strerror or str(exc))
    return "; ".join(dict.fromkeys(reasons)).lower()


def check_broker(
    bootstrap: str | KafkaClient, timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S, **client_options: Any
) -> list[str]:
    """Connect to `bootstrap` and list its topics, or raise BrokerUnreachable within about `timeout_s`.

    `client_options` are passed to kafka-python (e.g. security settings).
    """
    timeout_ms = max(100, int(timeout_s * 1000))
    address = bootstrap if isinstance(bootstrap, str) else bootstrap.bootstrap_servers
    try:
        refused = _refused(address, timeout_s)
    except TimeoutError:
        raise BrokerUnreachable(str(bootstrap), timeout_s) from None
    except ValueError as exc:  # a malformed address
        raise BrokerUnreachable(str(bootstrap), 0, str(exc)) from None
    if refused:
        raise BrokerUnreachable(str(bootstrap), 0, refused)
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
