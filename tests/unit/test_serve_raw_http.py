"""`retrieval serve` on raw HTTP (issues 27 and 40): JSON 4xx for a head it cannot trust (5,000-digit or
conflicting Content-Length, a head past its size, an HTTP/2 preface) and for an undeclared method; and the
attacks that used to starve it (slow heads, trickled bodies, idle floods) cost their sender only: other
clients are answered at once. Each answer here comes before any function runs, so no stack is needed.
Nothing is slept: each wait is a client-side timeout that fails the test when the server is late."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from retrieval_dev.serving import routes
from retrieval_dev.serving.gateway import Gateway
from retrieval_dev.serving.server import ServeLimits, running_in_thread

LIMITS = ServeLimits(head_timeout=1.0, body_timeout=1.0, idle_timeout=0.5, connections_per_client=8)
ATTACKER = "127.0.0.2"  # another client address on loopback (Linux routes all of 127/8 to lo)
ANSWERED_WITHIN = 2.0
"""Seconds a bystander's whole exchange may take while an attack runs (its socket's timeout)."""


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    gateway = Gateway(LIMITS)
    with running_in_thread(gateway, LIMITS) as address:
        yield address
    gateway.close()


def exchange(address: tuple[str, int], raw: bytes, timeout: float = 5) -> tuple[int, dict[str, object]]:
    with socket.create_connection(address, timeout=timeout) as conn:
        conn.sendall(raw)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"content-type: application/json" in head.lower()
    return status, json.loads(body)


def request(method: str, headers: str = "", body: bytes = b"") -> bytes:
    return f"{method} /v1/retrieve HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n".encode() + body


BYSTANDER = request("POST", "Content-Length: 2\r\n", b"{}")  # no token: the gateway's own 401


def connect_from(address: tuple[str, int], client: str) -> socket.socket:
    conn = socket.socket()
    conn.bind((client, 0))
    conn.connect(address)
    return conn


def test_a_five_thousand_digit_content_length_is_a_json_400(server: tuple[str, int]) -> None:
    status, body = exchange(server, request("POST", f"Content-Length: {'9' * 5000}\r\n"))
    assert status == 400 and body["error"] == "bad_request"


def test_conflicting_content_lengths_are_refused(server: tuple[str, int]) -> None:
    status, body = exchange(server, request("POST", "Content-Length: 2\r\nContent-Length: 40\r\n", b"{}"))
    assert status == 400 and body["error"] == "bad_request"


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "BREW"])
def test_an_undeclared_method_is_a_json_403_like_a_missing_route(
    server: tuple[str, int], method: str
) -> None:
    assert exchange(server, request(method)) == (403, routes.MISSING_ROUTE_BODY)


@pytest.mark.parametrize("parts", [1, 2], ids=["whole", "in-parts"])
def test_a_head_past_its_size_is_a_json_4xx(server: tuple[str, int], parts: int) -> None:
    headers = "".join(f"X-{n}: {'y' * 100}\r\n" for n in range(LIMITS.max_head_bytes // 100))
    raw = request("GET", headers)
    with socket.create_connection(server, timeout=5) as conn:
        for n in range(parts):  # h11 refuses a head that overflows its buffer; the app one that arrives whole
            conn.sendall(raw[n * len(raw) // parts : (n + 1) * len(raw) // parts])
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    assert received.split(b" ", 2)[1] in {b"400", b"431"}
    assert json.loads(received.partition(b"\r\n\r\n")[2])["error"] == "bad_request"


def test_an_http2_preface_gets_a_status_line_and_a_close(server: tuple[str, int]) -> None:
    status, body = exchange(server, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    assert status == 505 and "HTTP/1.1" in str(body["message"])


def test_a_body_that_never_arrives_is_refused_at_its_deadline(server: tuple[str, int]) -> None:
    raw = request("POST", "Content-Length: 500\r\n", b"{}")
    status, body = exchange(server, raw, timeout=LIMITS.body_timeout + ANSWERED_WITHIN)
    assert status == 400 and "Content-Length" in str(body["message"])


def test_an_idle_connection_is_closed_by_the_server(server: tuple[str, int]) -> None:
    with socket.create_connection(server, timeout=LIMITS.idle_timeout + ANSWERED_WITHIN) as idle:
        assert idle.recv(1) == b""  # closed by the server; our timeout would raise instead


def test_a_slow_head_is_cut_at_its_deadline_however_often_it_sends(server: tuple[str, int]) -> None:
    """One header byte per read keeps every read inside the idle timeout: only a deadline for the whole
    head ends it. The loop ends on the server's answer; the socket's timeout bounds each wait."""
    with socket.create_connection(server) as slow:
        slow.sendall(b"POST /v1/retrieve HTTP/1.1\r\nX-Slow: ")
        slow.settimeout(LIMITS.idle_timeout / 2)
        answer = b""
        for _ in range(int(4 * LIMITS.head_timeout / (LIMITS.idle_timeout / 2))):
            try:
                slow.sendall(b"x")
                answer += slow.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
            if answer:
                break
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_one_client_past_its_connections_is_429_and_another_client_is_answered(
    server: tuple[str, int],
) -> None:
    with ExitStack() as held:
        for _ in range(LIMITS.connections_per_client):
            held.enter_context(connect_from(server, ATTACKER))
        extra = held.enter_context(connect_from(server, ATTACKER))
        extra.settimeout(ANSWERED_WITHIN)
        assert extra.recv(4096).startswith(b"HTTP/1.1 429 ")
        assert exchange(server, BYSTANDER, timeout=ANSWERED_WITHIN)[0] == 401


def test_trickled_bodies_hold_no_worker(server: tuple[str, int]) -> None:
    """Twenty clients that send a head and then a byte of body now and then: a bystander is answered
    within its timeout, and each trickler is answered 400 at its body deadline, not served forever."""
    with ExitStack() as held:
        tricklers = []
        for n in range(20):
            conn = held.enter_context(connect_from(server, f"127.0.0.{10 + n}"))
            conn.sendall(request("POST", "Content-Length: 1000\r\nAuthorization: Bearer dev:acme\r\n", b"{"))
            tricklers.append(conn)
        for conn in tricklers:
            conn.sendall(b" ")
        assert exchange(server, BYSTANDER, timeout=ANSWERED_WITHIN)[0] == 401
        for conn in tricklers:
            conn.settimeout(LIMITS.body_timeout + ANSWERED_WITHIN)
            assert conn.recv(4096).startswith(b"HTTP/1.1 400 ")


def test_an_idle_flood_from_one_client_starves_nobody_else(server: tuple[str, int]) -> None:
    with ExitStack() as held:
        flood = [held.enter_context(connect_from(server, ATTACKER)) for _ in range(200)]
        assert exchange(server, BYSTANDER, timeout=ANSWERED_WITHIN)[0] == 401
        flood[-1].settimeout(ANSWERED_WITHIN)
        assert flood[-1].recv(4096).startswith(b"HTTP/1.1 429 ")


def test_retrieval_mcp_http_has_the_same_guards() -> None:
    """`retrieval mcp --http`'s app (streamable HTTP, with its lifespan) on the same server: a slow head
    is cut at its deadline and a bystander is answered meanwhile."""
    from retrieval_dev.mcp.backends import LocalBackend
    from retrieval_dev.mcp.server import build_server

    app = build_server(LocalBackend("dev:acme")).streamable_http_app(host="127.0.0.1")
    with running_in_thread(app, LIMITS, lifespan="on") as address, socket.create_connection(address) as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        with socket.create_connection(address, timeout=ANSWERED_WITHIN) as bystander:
            bystander.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            status = int(bystander.recv(4096).split(b" ", 2)[1])
        assert 400 <= status < 500  # answered (no session: a client error), not left waiting
        slow.settimeout(LIMITS.head_timeout + ANSWERED_WITHIN)
        assert slow.recv(4096).startswith(b"HTTP/1.1 408 ")
