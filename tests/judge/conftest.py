"""Fixtures of the judge tests: real comparators (session-scoped model) and a real chat-completions server."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import structlog

from monitor.models.dialog import ToolCall, UserMessage
from monitor.scoring.types import ObservedTurn

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _logs_to_live_stderr() -> Iterator[None]:
    """Keep structlog off files a previous test closed: the package's own set-up writes to the current stderr."""
    from monitor.logs import configure_logging

    saved = structlog.get_config()
    configure_logging("warning")
    yield
    structlog.configure(**saved)


@dataclass(frozen=True)
class Comparators:
    values: Any
    replies: Any


@pytest.fixture(scope="session")
def comparators(embedding_scorer: Any) -> Comparators:
    """The real value comparator over the session's all-MiniLM-L6-v2 model (loaded once per run) and the reply
    comparator the engine uses by default (the trained verifier)."""
    from monitor.equivalence import ValueComparator
    from monitor.scoring import ScoringConfig
    from monitor.wiring import reply_comparator

    semantic = embedding_scorer
    values = ValueComparator(semantic=semantic, threshold=0.5)
    replies = reply_comparator(ScoringConfig(), values, semantic, None)
    return Comparators(values, replies)


def completion(content: str, model: str = "judge-model") -> dict[str, Any]:
    """A chat-completions response body carrying ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }


def verdict_json(verdict: str, score: float, **extra: Any) -> str:
    return json.dumps({"verdict": verdict, "score": score, "reason": extra.pop("reason", "test"), **extra})


@dataclass
class Reply:
    """One scripted answer of the fake server: HTTP status, raw body, optional delay before answering."""

    status: int = 200
    body: str = ""
    delay: float = 0.0


@dataclass
class ChatServer:
    """A chat-completions endpoint on a loopback port that answers from a script (last answer repeats)."""

    url: str
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    respond: Callable[[dict[str, Any]], Reply] | None = None  # a model: answers from the request body
    # the control question (repeat a code, ignoring the data): answered by `control`, else as a model that
    # keeps to its instructions does; recorded apart from the verdict requests
    control: Callable[[dict[str, Any]], Reply] | None = None
    controls: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, *replies: Reply) -> None:
        self.script = list(replies)

    def answer_content(self, *contents: str) -> None:
        self.answer(*(Reply(200, json.dumps(completion(c))) for c in contents))

    def answer_verdict(self, verdict: str, score: float, **extra: Any) -> None:
        self.answer_content(verdict_json(verdict, score, **extra))

    def next_reply(self) -> Reply:
        with self.lock:
            if len(self.script) > 1:
                return self.script.pop(0)
            return self.script[0] if self.script else Reply(500, "no script")


def control_code(body: dict[str, Any]) -> str | None:
    """The code a control question asks to repeat (None: the request asks for a verdict)."""
    messages = body.get("messages") or [{}]
    found = re.match(r"Repeat the code (\w+) once", str(messages[-1].get("content", "")))
    return found.group(1) if found else None


def honest_control(body: dict[str, Any]) -> Reply:
    """The answer of a model that keeps to its instructions: the code, whatever the data says."""
    return Reply(200, json.dumps(completion(json.dumps({"echo": control_code(body)}))))


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if control_code(body) is not None:
                with server.lock:
                    server.controls.append(body)
                answer = server.control(body) if server.control is not None else honest_control(body)
                self._send(answer)
                return
            with server.lock:
                server.requests.append({"path": self.path, "body": body})
                server.headers.append(dict(self.headers))
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            reply = server.respond(body) if server.respond is not None else server.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            with server.lock:  # answered: no longer in flight once the response can reach the client
                server.in_flight -= 1
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            try:
                data = reply.body.encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A real HTTP chat-completions server on a free loopback port, for one test."""
    state = ChatServer(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, name="fake-chat-server", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL where nothing listens (a port bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def registry() -> Any:
    """A fresh Prometheus registry per test."""
    from prometheus_client import CollectorRegistry

    return CollectorRegistry()


@pytest.fixture
def sample(registry: Any) -> Callable[..., float]:
    """Read a sample of the test's registry: ``sample("aem_judge_requests_total", outcome="ok")``."""

    def read(name: str, **labels: str) -> float:
        value = registry.get_sample_value(name, labels or None)
        return 0.0 if value is None else float(value)

    return read


def booking_history(**output: object) -> list[ObservedTurn]:
    """A user asking to book UA-100 and the booking tool confirming it (`output` adds fields to its result)."""
    return [
        ObservedTurn(turn_no=1, turn="User", predict=UserMessage(content="Book UA-100 for Maria Lopez, please.")),
        ObservedTurn(
            turn_no=2,
            turn="Tool",
            predict=ToolCall(
                tool_id="flights",
                action="book",
                args={"flight_id": "UA-100", "passenger_name": "Maria Lopez"},
                output={"status": "confirmed", "booking_id": "BK-48213", **output},
            ),
        ),
    ]


# -- a raw TCP endpoint for hostile behaviour (drips, floods, silence) ----------------------------------

ANSWER = json.dumps(completion(verdict_json("pass", 1.0))).encode()


@dataclass
class RawEndpoint:
    """A TCP server that reads a request's head and body, then runs ``behave(conn)``."""

    behave: Callable[[socket.socket], None]
    url: str = ""
    sent: list[int] = field(default_factory=list)  # bytes each connection managed to send
    handlers: list[threading.Thread] = field(default_factory=list)


def _read_request(conn: socket.socket) -> Any:
    """The request's JSON body (None when the client left first)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return json.loads(body or b"{}")


@pytest.fixture
def raw_endpoint() -> Iterator[Callable[[Callable[[socket.socket], None]], RawEndpoint]]:
    servers: list[socket.socket] = []

    def start(behave: Callable[[socket.socket], None]) -> RawEndpoint:
        endpoint = RawEndpoint(behave)
        server = socket.create_server(("127.0.0.1", 0))
        servers.append(server)
        endpoint.url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"

        def handle(conn: socket.socket) -> None:
            with conn:
                body = _read_request(conn)
                with contextlib.suppress(OSError):  # the client hung up
                    if body is not None and control_code(body) is not None:  # a model keeping to its instructions
                        answer = honest_control(body).body.encode()
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
                    else:
                        endpoint.behave(conn)

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                thread = threading.Thread(target=handle, args=(conn,), daemon=True)
                endpoint.handlers.append(thread)
                thread.start()

        threading.Thread(target=serve, daemon=True).start()
        return endpoint

    yield start
    for server in servers:
        server.close()


def drip(data: bytes, every_s: float, stop_after_s: float = 60.0) -> Callable[[socket.socket], None]:
    """Send ``data`` one byte every ``every_s`` seconds (for at most ``stop_after_s``)."""

    def behave(conn: socket.socket) -> None:
        started = time.monotonic()
        for i in range(len(data)):
            if time.monotonic() - started > stop_after_s:
                return
            conn.sendall(data[i : i + 1])
            time.sleep(every_s)

    return behave


def http_response(body: bytes, length: int | None = None) -> bytes:
    declared = len(body) if length is None else length
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (declared, body)
