"""Issue 27, case 7: `retrieval serve` on raw HTTP behaves like API Gateway: JSON 4xx for a Content-Length
it cannot trust (5,000 digits, two that disagree) and for an undeclared method, slowloris and idle
connections closed in bounded time, and a bounded pool of threads. Each answer here comes before any
function runs, so no stack is needed. Times are measured, never slept."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from retrieval_dev.cli import serve


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    monkeypatch.setattr(serve, "HEAD_TIMEOUT_SECONDS", 1.0)
    monkeypatch.setattr(serve._Handler, "timeout", 0.5)
    httpd = serve._Server(("127.0.0.1", 0), serve._Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[:2]  # type: ignore[misc]
    httpd.shutdown()
    httpd.server_close()


def exchange(address: tuple[str, int], raw: bytes) -> tuple[int, dict[str, object]]:
    with socket.create_connection(address, timeout=5) as conn:
        conn.sendall(raw)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"content-type: application/json" in head.lower()
    return status, json.loads(body)


def request(method: str, headers: str = "", body: bytes = b"") -> bytes:
    return f"{method} /v1/retrieve HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode() + body


def test_a_five_thousand_digit_content_length_is_a_json_400(server: tuple[str, int]) -> None:
    status, body = exchange(server, request("POST", f"Content-Length: {'9' * 5000}\r\n"))
    assert status == 400 and body["error"] == "bad_request"


def test_conflicting_content_lengths_are_refused(server: tuple[str, int]) -> None:
    raw = request("POST", "Content-Length: 2\r\nContent-Length: 40\r\n", b"{}")
    status, body = exchange(server, raw)
    assert status == 400 and "conflicting" in str(body["message"])


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "BREW"])
def test_an_undeclared_method_is_a_json_403_like_a_missing_route(
    server: tuple[str, int], method: str
) -> None:
    status, body = exchange(server, request(method))
    assert (status, body) == (403, serve.MISSING_ROUTE_BODY)


def test_the_parsers_own_refusals_are_json(server: tuple[str, int]) -> None:
    headers = "".join(f"X-{n}: y\r\n" for n in range(150))
    status, body = exchange(server, request("GET", headers))
    assert status == 431 and body["error"] == "bad_request"


def test_idle_and_slowloris_connections_are_closed_in_bounded_time(server: tuple[str, int]) -> None:
    with socket.create_connection(server, timeout=5) as idle:
        started = time.monotonic()
        assert idle.recv(1) == b""  # closed by the server, not by our timeout
        assert time.monotonic() - started < 3
    with socket.create_connection(server, timeout=5) as slow:
        started = time.monotonic()
        slow.sendall(b"POST /v1/retrieve HTTP/1.1\r\n")
        closed = False
        # One header byte per 0.2 s keeps every read inside the idle timeout; the head deadline ends it.
        while time.monotonic() - started < 4 and not closed:
            try:
                slow.sendall(b"X")
                slow.settimeout(0.2)
                closed = slow.recv(1) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
        assert closed and time.monotonic() - started < 3


def test_the_pool_is_bounded_and_overflow_is_a_json_429(
    server: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve, "HEAD_TIMEOUT_SECONDS", 30.0)  # the held connections must stay held
    monkeypatch.setattr(serve._Handler, "timeout", 30.0)
    before = threading.active_count()  # other tests of the process may have left threads running
    held = [socket.create_connection(server) for _ in range(serve.WORKERS + serve.QUEUED)]
    try:
        status, body = exchange(server, request("GET"))
        assert (status, body["error"]) == (429, "throttled")
        # Threads per worker (the worker and its request-head watchdog), not per held connection.
        assert threading.active_count() - before <= 2 * serve.WORKERS
    finally:
        for conn in held:
            conn.close()
