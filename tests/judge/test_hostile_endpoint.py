"""A hostile judge endpoint: it drips its answer a byte at a time, or sends far more than an answer.

Real loopback sockets. Each attempt must end by its deadline (the whole exchange, not each read), a response
past ``max_response_bytes`` is refused without being read to its end, and closing the judge cuts off the
requests in flight so that a stopping monitor does not wait for the endpoint.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest

from monitor.judge import JudgeUnavailable, LLMJudge
from monitor.judge.config import JudgeSettings

from .conftest import ANSWER, RawEndpoint, drip, http_response


def judge(url: str, **overrides: object) -> LLMJudge:
    settings = {"url": url, "timeout": 1.0, "max_attempts": 1, **overrides}
    return LLMJudge(JudgeSettings.model_validate(settings), sleep=lambda _: None)


def timed(call: Callable[[], object]) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        call()
    except BaseException as exc:  # the test reads what was raised
        return time.monotonic() - started, exc
    return time.monotonic() - started, None


def test_a_body_dripped_a_byte_at_a_time_ends_at_the_attempts_deadline(
    raw_endpoint: Callable[..., RawEndpoint],
) -> None:
    """One byte every 0.1 s never trips a per-read timeout of 1 s: the attempt's own deadline ends it."""
    head, _, body = http_response(ANSWER).partition(b"\r\n\r\n")
    endpoint = raw_endpoint(lambda conn: (conn.sendall(head + b"\r\n\r\n"), drip(body, 0.1)(conn)))
    with judge(endpoint.url) as client:
        elapsed, error = timed(lambda: client.judge("completeness", "t", "r"))
    assert isinstance(error, JudgeUnavailable), error
    assert "within 1s" in str(error)
    assert elapsed < 2.0, f"the attempt took {elapsed:.1f}s against a 1 s deadline"


def test_a_response_head_dripped_a_byte_at_a_time_ends_at_the_attempts_deadline(
    raw_endpoint: Callable[..., RawEndpoint],
) -> None:
    endpoint = raw_endpoint(drip(http_response(ANSWER), 0.1))
    with judge(endpoint.url) as client:
        elapsed, error = timed(lambda: client.judge("completeness", "t", "r"))
    assert isinstance(error, JudgeUnavailable), error
    assert elapsed < 2.0, f"the attempt took {elapsed:.1f}s against a 1 s deadline"


def test_an_answer_within_the_deadline_still_counts(raw_endpoint: Callable[..., RawEndpoint]) -> None:
    endpoint = raw_endpoint(lambda conn: conn.sendall(http_response(ANSWER)))
    with judge(endpoint.url) as client:
        assert client.judge("completeness", "t", "r").verdict == "pass"


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_response_past_the_size_cap_is_refused_unread(
    raw_endpoint: Callable[..., RawEndpoint], declared: bool
) -> None:
    """50 MB offered (the answer's JSON padded with spaces): refused once past 64 KiB, not read to its end."""
    total = 50_000_000
    block = b" " * 65536
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (total + len(ANSWER))
        if declared
        else b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )

    def flood(conn: socket.socket) -> None:
        conn.sendall(head)
        sent = 0
        while sent < total:
            conn.sendall(block if declared else b"%x\r\n%s\r\n" % (len(block), block))
            sent += len(block)
            endpoint.sent.append(len(block))
        conn.sendall(ANSWER if declared else b"%x\r\n%s\r\n0\r\n\r\n" % (len(ANSWER), ANSWER))

    endpoint = raw_endpoint(flood)
    with judge(endpoint.url, timeout=20.0, max_response_bytes=65536) as client:
        _, error = timed(lambda: client.judge("completeness", "t", "r"))
    assert isinstance(error, JudgeUnavailable), error
    assert "too large" in str(error)
    for handler in endpoint.handlers:
        handler.join(timeout=5)
    assert sum(endpoint.sent) < total / 2, f"{sum(endpoint.sent):,} bytes were read before the refusal"


def test_closing_the_judge_cuts_off_requests_in_flight(raw_endpoint: Callable[..., RawEndpoint]) -> None:
    """A stopping monitor closes its judge: a worker held by a silent endpoint is free at once, with no retry."""
    requests: list[float] = []

    def silent(conn: socket.socket) -> None:
        requests.append(time.monotonic())
        time.sleep(30)

    endpoint = raw_endpoint(silent)
    client = judge(endpoint.url, timeout=60.0, max_attempts=3, backoff_s=5.0)
    future = client.submit("completeness", "t", "r")
    deadline = time.monotonic() + 5
    while not requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert requests, "the request never reached the endpoint"
    closed = time.monotonic()
    client.close()
    with pytest.raises(JudgeUnavailable):
        future.result(timeout=5)
    assert time.monotonic() - closed < 1.0
    assert len(requests) == 1, "a closed judge asked again"
