"""Health you can alert on: `/healthz` and `/metrics` on a bounded HTTP server, and a broker probe.

``/healthz`` answers 200 while the last poll and the last broker contact are both recent, 503 otherwise; it
never talks to Kafka itself. The probe refreshes cluster metadata on a thread of its own (kafka-python's
consumer does not report a dead broker: its polls just come back empty). A client dripping header lines
holds no handler thread: heads are read by one selector thread, and closed when not complete in time.
"""

from __future__ import annotations

import contextlib
import io
import json
import selectors
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import structlog
from kafka import KafkaConsumer
from kafka.errors import KafkaError
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from monitor.cluster import KafkaClient, client_kwargs
from monitor.stream.settings import MonitorSettings

log = structlog.get_logger(__name__)


class BrokerUnreachable(RuntimeError):
    """No successful contact with the broker for longer than the configured limit."""


class Health:
    """Thread-safe: the loop and the probe write, the HTTP handlers read."""

    def __init__(
        self,
        max_poll_age_s: float = 60.0,
        max_broker_silence_s: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_poll_age_s = max_poll_age_s
        self.max_broker_silence_s = max_broker_silence_s
        self.clock = clock
        self.started = clock()
        self._last_poll: float | None = None
        self._last_contact: float | None = None
        self._lock = threading.Lock()

    def polled(self) -> None:
        with self._lock:
            self._last_poll = self.clock()

    def broker_contact(self) -> None:
        with self._lock:
            self._last_contact = self.clock()

    def broker_silence(self) -> float:
        """Seconds since the last broker contact (since start when there was none)."""
        with self._lock:
            return self.clock() - (self._last_contact if self._last_contact is not None else self.started)

    def report(self) -> tuple[bool, dict[str, Any]]:
        now = self.clock()
        with self._lock:
            poll_age = None if self._last_poll is None else round(now - self._last_poll, 3)
            contact_age = None if self._last_contact is None else round(now - self._last_contact, 3)
        polling = poll_age is not None and poll_age <= self.max_poll_age_s
        reachable = contact_age is not None and contact_age <= self.max_broker_silence_s
        body = {
            "status": "ok" if polling and reachable else "failing",
            "last_poll_age_s": poll_age,
            "broker_reachable": reachable,
            "last_broker_contact_age_s": contact_age,
        }
        return polling and reachable, body


class BrokerProbe:
    """Refreshes cluster metadata every ``interval_s`` on a thread; each success is a broker contact."""

    def __init__(
        self,
        cluster: str | KafkaClient,
        health: Health,
        interval_s: float = 5.0,
        timeout_s: float = 3.0,
        silence_limit_s: float = 0.0,
        on_silence: Callable[[Exception], None] = lambda failure: None,
    ) -> None:
        self.cluster = cluster
        self.health = health
        self.silence_limit_s = silence_limit_s  # 0: never give up
        self.on_silence = on_silence
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="aem-broker-probe", daemon=True)
        self._consumer: KafkaConsumer | None = None
        self._failing = False

    def start(self) -> BrokerProbe:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.timeout_s + 2)
        if self._consumer is not None:
            with contextlib.suppress(KafkaError):  # closing a client of a dead broker
                self._consumer.close()

    def probe_once(self) -> bool:
        try:
            timeout_ms = int(self.timeout_s * 1000)
            if self._consumer is None:  # kafka-python bootstraps in the constructor, by default for up to 30 s
                self._consumer = KafkaConsumer(
                    **client_kwargs(self.cluster),
                    group_id=None,
                    client_id="aem-health",
                    bootstrap_timeout_ms=timeout_ms,
                )
            self._consumer.bootstrap(timeout_ms=timeout_ms, refresh=True)
        except KafkaError as exc:
            if not self._failing:
                log.warning("broker_unreachable", cluster=str(self.cluster), error=repr(exc)[:200])
            self._failing = True
            return False
        if self._failing:
            log.info("broker_reachable_again", cluster=str(self.cluster))
        self._failing = False
        self.health.broker_contact()
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            self.probe_once()
            silence = self.health.broker_silence()
            if self.silence_limit_s and silence > self.silence_limit_s:
                log.error("broker_unreachable_giving_up", silent_s=round(silence, 1), limit_s=self.silence_limit_s)
                why = f"{silence:.0f}s (broker_unreachable_exit_s={self.silence_limit_s:g})"
                self.on_silence(BrokerUnreachable(f"no contact with the broker at {self.cluster} for {why}"))
                return
            self._stop.wait(self.interval_s)


_MAX_HEAD_BYTES = 16 * 1024  # a request head longer than this is closed unread
_MAX_PENDING = 256  # connections whose head is being read; past it the oldest is closed


class _HeadReader:
    """Reads the request heads of accepted connections without blocking on any of them (one selector thread);
    a complete head goes to `ready`, a connection past its deadline or the head limit is closed."""

    def __init__(self, deadline_s: float, ready: Callable[[socket.socket, Any, bytes], object]) -> None:
        self._deadline_s, self._ready = deadline_s, ready
        self._selector = selectors.DefaultSelector()
        self._pending: dict[socket.socket, tuple[Any, float, bytearray]] = {}  # insertion order: oldest first
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="aem-http-heads", daemon=True)
        self._thread.start()

    def add(self, sock: socket.socket, address: Any) -> None:
        sock.setblocking(False)
        with self._lock:
            while len(self._pending) >= _MAX_PENDING:
                self._drop(next(iter(self._pending)))
            self._pending[sock] = (address, time.monotonic() + self._deadline_s, bytearray())
            self._selector.register(sock, selectors.EVENT_READ)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            for sock in list(self._pending):
                self._drop(sock)
        self._selector.close()

    def _drop(self, sock: socket.socket) -> None:
        self._pending.pop(sock, None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(sock)
        with contextlib.suppress(OSError):
            sock.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                empty = not self._pending
            if empty:
                self._stop.wait(0.05)
                continue
            for key, _ in self._selector.select(timeout=0.1):
                self._read(key.fileobj)  # type: ignore[arg-type]
            self._expire()

    def _read(self, sock: socket.socket) -> None:
        with self._lock:
            entry = self._pending.get(sock)
            if entry is None:
                return
            try:
                chunk = sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                chunk = b""
            head = entry[2]
            head += chunk
            if not chunk or len(head) > _MAX_HEAD_BYTES:
                self._drop(sock)
                return
            if b"\r\n\r\n" not in head and b"\n\n" not in head:
                return
            self._pending.pop(sock)
            self._selector.unregister(sock)
        self._ready(sock, entry[0], bytes(head))

    def _expire(self) -> None:
        now = time.monotonic()
        with self._lock:
            for sock in [s for s, (_, deadline, _) in self._pending.items() if deadline <= now]:
                self._drop(sock)


class _Handler(BaseHTTPRequestHandler):
    """`/metrics` and `/healthz` of its server's registry and health, from the head the selector thread read."""

    protocol_version = "HTTP/1.0"
    server: HealthServer

    def __init__(self, request: Any, client_address: Any, server: HealthServer, head: bytes = b"") -> None:
        self._head = head
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout_s)
        self.rfile = io.BytesIO(self._head)  # a GET has no body

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/metrics":  # OpenMetrics (with exemplars) when the scraper asks for it
            encoder, content_type = choose_encoder(self.headers.get("Accept", ""))
            self._send(200, content_type, encoder(self.server.registry))
        elif path == "/healthz":
            ok, body = self.server.health.report()
            self._send(200 if ok else 503, "application/json", json.dumps(body).encode())
        else:
            self._send(404, "text/plain; charset=utf-8", b"not found: /metrics and /healthz only\n")

    def do_HEAD(self) -> None:
        self._send(405, "text/plain; charset=utf-8", b"")

    do_POST = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = do_TRACE = do_CONNECT = do_HEAD

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        try:
            self.send_response(status)
            if status == 405:
                self.send_header("Allow", "GET")
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:
        return


class MetricsPortUnavailable(OSError):
    """The metrics address cannot be bound (the port is taken, or not ours to bind): says which and what to do."""

    def __init__(self, host: str, port: int, cause: OSError) -> None:
        reason = cause.strerror or str(cause)
        super().__init__(
            cause.errno,
            f"cannot serve metrics on {host}:{port}: {reason}; choose another --metrics-port (0: any free port)",
        )

    def __str__(self) -> str:
        return str(self.strerror)


class HealthServer(ThreadingHTTPServer):
    """``/metrics`` and ``/healthz`` on ``host:port`` (port 0: any free port): accepts at once, heads are read by
    a `_HeadReader`, requests handled by at most ``max_connections`` threads."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(
        self,
        registry: CollectorRegistry,
        health: Health,
        host: str = "0.0.0.0",
        port: int = 9464,
        max_connections: int = 8,
        request_timeout_s: float = 10.0,
    ) -> None:
        self.registry, self.health, self.request_timeout_s = registry, health, request_timeout_s
        self._workers = ThreadPoolExecutor(max_connections, thread_name_prefix="aem-http-handler")
        self._heads = _HeadReader(request_timeout_s, lambda *head: self._workers.submit(self._serve, *head))
        try:
            super().__init__((host, port), _Handler)  # a failed bind closes the server (the two above too)
        except OSError as exc:
            raise MetricsPortUnavailable(host, port, exc) from None
        self.port = int(self.server_address[1])
        self._thread = threading.Thread(target=self.serve_forever, name="aem-http", daemon=True)

    def start(self) -> HealthServer:
        self._thread.start()
        return self

    def shutdown(self) -> None:
        super().shutdown()
        self.server_close()
        self._thread.join(timeout=5)

    def process_request(self, request: Any, client_address: Any) -> None:
        self._heads.add(request, client_address)  # never blocks: the head is read by the selector thread

    def _serve(self, sock: socket.socket, address: Any, head: bytes) -> None:
        try:
            _Handler(sock, address, self, head)
        except Exception:  # a client that went away mid-answer: nothing to do but close
            pass
        finally:
            self.shutdown_request(sock)

    def server_close(self) -> None:
        super().server_close()
        self._heads.close()
        self._workers.shutdown(wait=False, cancel_futures=True)


class Watch:
    """How the monitor is watched: `/healthz` and `/metrics` (`serve`), and the broker probe (`start_probe`) that
    calls `on_unreachable` after `broker_unreachable_exit_s` without contact."""

    def __init__(self, settings: MonitorSettings, registry: CollectorRegistry) -> None:
        self.settings = s = settings
        self.registry = registry
        self.on_unreachable: Callable[[Exception], None] = lambda failure: None  # the monitor sets its own
        self.health = Health(s.healthz_max_poll_age_s, s.healthz_max_broker_silence_s)
        self._http: HealthServer | None = None
        self._probe: BrokerProbe | None = None

    def serve(self) -> int:
        """Serve `/metrics` and `/healthz` (once); returns the port."""
        if self._http is None:
            s = self.settings
            self._http = HealthServer(
                self.registry, self.health, s.metrics_host, s.metrics_port, s.http_max_connections
            ).start()
            log.info("metrics_served", port=self._http.port)
        return self._http.port

    def start_probe(self) -> None:
        s = self.settings
        self.health.broker_contact()  # start-up reached the broker (topics, producer metadata)
        give_up = s.broker_unreachable_exit_s
        self._probe = BrokerProbe(  # by now `on_unreachable` is the monitor's
            s.cluster, self.health, s.broker_probe_interval_s, silence_limit_s=give_up, on_silence=self.on_unreachable
        ).start()

    def reachable(self) -> bool:
        """The probe heard from the broker lately (without a probe, e.g. injected fakes: assumed)."""
        return self._probe is None or self.health.broker_silence() < 1.5 * self.settings.broker_probe_interval_s

    def stop_probe(self) -> None:
        if self._probe is not None:
            self._probe.stop()

    def stop(self) -> None:
        self.stop_probe()
        if self._http is not None:
            self._http.shutdown()
            self._http = None
