"""One HTTP exchange with the judge under an overall deadline and a size cap, abortable from another thread.

httpx's timeouts are per socket operation: an endpoint that sends one byte every few seconds never trips
them, and a body of any size is read to its end. Here each exchange has one deadline for the whole of it
(connect, request, response head and body): a watchdog shuts the exchange's socket down when it passes,
which wakes the worker blocked in ``recv``. The body is read in chunks and refused as soon as it passes
``max_bytes`` (after decompression, so a compressed bomb is refused too). :meth:`Exchanges.abort_all`
shuts down every exchange in flight (a monitor stopping does not wait for a hostile endpoint).

The socket is learnt from httpcore's ``trace`` extension when the connection is made, so the clients this
module builds keep no idle connections: every exchange connects afresh and is covered from its first byte.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

import httpx


class DeadlinePassed(Exception):
    """The exchange did not finish within its deadline."""


class TooLarge(Exception):
    """The response body passed the size cap."""


class Aborted(Exception):
    """The exchange was shut down because the client is closing."""


def client_without_idle_connections(timeout: float) -> httpx.Client:
    """An httpx client whose every request opens its own connection (so the watchdog sees its socket)."""
    return httpx.Client(timeout=httpx.Timeout(timeout), limits=httpx.Limits(max_keepalive_connections=0))


@dataclass
class _Live:
    """One exchange in flight: its sockets, and why it was cut short (if it was)."""

    sockets: list[socket.socket] = field(default_factory=list)
    cut: type[Exception] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if not event.endswith((".connect_tcp.complete", ".start_tls.complete")):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with self.lock:
                self.sockets.append(sock)
                late = self.cut is not None
            if late:
                _shut(sock)

    def cut_short(self, why: type[Exception]) -> None:
        with self.lock:
            self.cut = self.cut or why
            sockets = list(self.sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


class Exchanges:
    """POSTs over one httpx client, each bounded by a deadline and a response size; abortable all at once."""

    def __init__(self, client: httpx.Client, max_bytes: int) -> None:
        self.client = client
        self.max_bytes = max_bytes
        self._by_id: dict[int, _Live] = {}
        self._lock = threading.Lock()
        self._closed = False

    def post(self, url: str, body: Any, headers: dict[str, str], deadline_s: float) -> tuple[int, bytes]:
        """``(status, body)``; :class:`DeadlinePassed`, :class:`TooLarge`, :class:`Aborted` or an httpx error."""
        live = _Live()
        with self._lock:
            if self._closed:
                raise Aborted("the judge client is closed")
            self._by_id[id(live)] = live
        watchdog = threading.Timer(deadline_s, live.cut_short, args=(DeadlinePassed,))
        watchdog.daemon = True
        watchdog.start()
        try:
            with self.client.stream(
                "POST", url, json=body, headers=headers, extensions={"trace": live.trace}
            ) as response:
                self._adopt(live, response)
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
                    raise TooLarge(f"a response of {int(declared):,} bytes (limit {self.max_bytes:,})")
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise TooLarge(f"a response past {self.max_bytes:,} bytes")
                    chunks.append(chunk)
                if live.cut is not None:
                    raise live.cut(f"cut short after {deadline_s:g}s")
                return response.status_code, b"".join(chunks)
        except httpx.HTTPError:
            if live.cut is not None:  # the watchdog (or a close) ended it: say so, not the symptom
                raise live.cut(f"no complete answer within {deadline_s:g}s") from None
            raise
        finally:
            watchdog.cancel()
            with self._lock:
                self._by_id.pop(id(live), None)

    def _adopt(self, live: _Live, response: httpx.Response) -> None:
        """A connection the client reused gave no trace: take its socket from the response."""
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket) and sock not in live.sockets:
            live.trace(".connect_tcp.complete", {"return_value": stream})

    def abort_all(self) -> None:
        """Refuse new exchanges and shut down those in flight."""
        with self._lock:
            self._closed = True
            live = list(self._by_id.values())
        for exchange in live:
            exchange.cut_short(Aborted)
