"""structlog set-up: one explicit processor chain, JSON or console rendering, to stderr."""

from __future__ import annotations

import logging
import sys

import structlog


class _CurrentStderr:
    """Writes to whatever `sys.stderr` is at write time (it may be swapped, e.g. under test capture)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


class _ClosingClientNoise(logging.Filter):
    """Drops kafka-python's "Metadata refresh loop error: Cancelled": its background metadata loop is
    cancelled whenever a client closes (every stop, every test consumer), and logs that as an ERROR."""

    def filter(self, record: logging.LogRecord) -> bool:
        closing = str(record.msg).startswith("Metadata refresh loop error") and any(
            type(arg).__name__ == "Cancelled" for arg in (record.args if isinstance(record.args, tuple) else ())
        )
        return not closing


def configure_logging(level: str = "info", json_logs: bool = False) -> None:
    """Configure structlog once for a command-line entry point (library code only gets loggers)."""
    kafka_cluster = logging.getLogger("kafka.cluster")
    if not any(isinstance(f, _ClosingClientNoise) for f in kafka_cluster.filters):
        kafka_cluster.addFilter(_ClosingClientNoise())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )
