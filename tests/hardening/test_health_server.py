"""/healthz and /metrics on their paths only, served by a bounded number of threads."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Counter

from monitor.stream.health import Health, HealthServer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def served(clock: Clock) -> Iterator[tuple[HealthServer, Health]]:
    registry = CollectorRegistry()
    Counter("aem_probe_things", "a metric to find", registry=registry).inc()
    health = Health(max_poll_age_s=60, max_broker_silence_s=15, clock=clock)
    server = HealthServer(registry, health, host="127.0.0.1", port=0, max_connections=2, request_timeout_s=1.0)
    server.start()
    try:
        yield server, health
    finally:
        server.shutdown()


def get(port: int, path: str, method: str = "GET") -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_only_metrics_and_healthz_answer(served: tuple[HealthServer, Health]) -> None:
    server, _ = served
    status, body = get(server.port, "/metrics")
    assert status == 200 and b"aem_probe_things_total 1.0" in body
    for path in ("/", "/metrics/x", "/healthz/", "/admin", "/../etc/passwd"):
        assert get(server.port, path)[0] == 404, path
    assert get(server.port, "/metrics", method="POST")[0] == 405
    for method in ("OPTIONS", "PATCH", "TRACE", "PUT", "DELETE"):
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/metrics", method=method)
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=30)
        assert (answer.value.code, answer.value.headers["Allow"]) == (405, "GET"), method


def test_healthz_follows_polls_and_broker_contact(served: tuple[HealthServer, Health], clock: Clock) -> None:
    server, health = served
    status, body = get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["status"] == "failing"  # nothing happened yet
    health.polled()
    health.broker_contact()
    status, body = get(server.port, "/healthz")
    report = json.loads(body)
    assert status == 200 and report["status"] == "ok" and report["broker_reachable"] is True
    clock.now += 16  # polls go on, the broker went silent
    health.polled()
    status, body = get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["broker_reachable"] is False
    health.broker_contact()
    clock.now += 61  # the loop stopped polling
    status, body = get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["last_poll_age_s"] == pytest.approx(61)


def handler_threads() -> int:
    return sum(t.name.startswith("aem-http-handler") for t in threading.enumerate())


def test_idle_connections_hold_at_most_the_bounded_threads(served: tuple[HealthServer, Health]) -> None:
    server, _ = served
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(10)]
    try:
        time.sleep(0.3)
        assert handler_threads() <= 2  # ten idle clients, two threads
        status, _ = get(server.port, "/metrics")  # still answered once idle ones time out (1 s each)
        assert status == 200
        assert handler_threads() <= 2
    finally:
        for sock in idle:
            sock.close()


def test_clients_dripping_header_lines_neither_hold_handlers_nor_delay_a_probe(
    served: tuple[HealthServer, Health],
) -> None:
    """Twenty clients each send a header line every 0.2 s and never finish their request (the fixture's
    request deadline is 1 s): /healthz and /metrics still answer at once, and the drippers are closed."""
    server, _ = served
    drippers = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
    for sock in drippers:
        sock.sendall(b"GET /metrics HTTP/1.1\r\n")
    stop = threading.Event()

    def drip() -> None:
        while not stop.wait(0.2):
            for sock in drippers:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X-Drip: 1\r\n")

    dripping = threading.Thread(target=drip, daemon=True)
    dripping.start()
    try:
        time.sleep(0.5)
        started = time.monotonic()
        assert get(server.port, "/healthz")[0] in (200, 503)
        assert get(server.port, "/metrics")[0] == 200
        answered_in = time.monotonic() - started
        # past the request deadline (1 s) every dripper is closed: each read ends at its close, 5 s at most in all
        deadline = time.monotonic() + 5.0
        closed = 0
        for sock in drippers:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                closed += sock.recv(1) == b""
            except ConnectionResetError:  # closed with the drip unread: the peer resets
                closed += 1
            except TimeoutError:
                pass
    finally:
        stop.set()
        dripping.join()
        for sock in drippers:
            sock.close()
    print(f"two requests answered in {answered_in:.3f}s beside 20 dripping clients")
    assert answered_in < 0.5
    assert closed == len(drippers)


def test_openmetrics_with_exemplars_when_asked_for(clock: Clock) -> None:
    registry = CollectorRegistry()
    Counter("aem_probe_failures", "failing turns", registry=registry).inc(exemplar={"conversation_id": "c-7"})
    server = HealthServer(registry, Health(clock=clock), host="127.0.0.1", port=0).start()
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/metrics", headers={"Accept": "application/openmetrics-text"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            body, content_type = response.read().decode(), response.headers["Content-Type"]
        plain = get(server.port, "/metrics")[1].decode()
    finally:
        server.shutdown()
    assert content_type.startswith("application/openmetrics-text")
    assert '# {conversation_id="c-7"} 1.0' in body and body.rstrip().endswith("# EOF")
    assert "conversation_id" not in plain  # the classic text format has no exemplars
