"""uvicorn, hardened for a server anyone on the machine can reach: every connection must send a request's
whole head within ``head_timeout`` (counted from the connection's start, or from the previous answer on
a kept-alive one), may stay silent at most ``idle_timeout``, and one client address may hold at most
``connections_per_client`` connections (the next is answered 429 and closed), ``max_connections`` in all
(503). The body's own deadline is the app's (``gateway.read_body``). The HTTP parser's refusals (a
malformed head, an HTTP/2 preface, a head past ``max_head_bytes``) are JSON 400s, as API Gateway's are.

Connections are coroutines, not threads: a client that trickles bytes holds a few kilobytes of memory,
never a worker, so other clients are answered while it waits out its deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, cast

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class ServeLimits:
    head_timeout: float = 5.0
    """Seconds for a request's whole head (a byte every second does not extend it)."""
    body_timeout: float = 10.0
    """Seconds for a request's whole body, from the end of its head."""
    idle_timeout: float = 5.0
    """Seconds a connection may send nothing (before its first request, or between requests)."""
    connections_per_client: int = 64
    max_connections: int = 1000
    max_head_bytes: int = 16 * 1024
    workers: int = 16
    """Threads that run the (blocking) handlers; requests past them wait their turn in the event loop."""


def raw_answer(status: int, reason: str, body: dict[str, str]) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, for refusals made before h11 has a request."""
    payload = json.dumps(body).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    )
    return head.encode() + payload


TOO_MANY_CONNECTIONS = raw_answer(
    429, "Too Many Requests", {"error": "throttled", "message": "Too many connections from this client."}
)
SERVER_FULL = raw_answer(
    503, "Service Unavailable", {"error": "unavailable", "message": "The server has too many connections."}
)
HEAD_TOO_SLOW = raw_answer(
    408, "Request Timeout", {"error": "request_timeout", "message": "The request head took too long."}
)

HTTP2_PREFACE = b"PRI * HTTP/2"
"""How an HTTP/2 connection without upgrade begins (RFC 9113, 3.4): this server speaks HTTP/1.1 only."""
HTTP2_REFUSED = raw_answer(
    505, "HTTP Version Not Supported", {"error": "bad_request", "message": "Only HTTP/1.1 is served here."}
)


class GuardedConfig(uvicorn.Config):
    """uvicorn's config with the limits, and the live count of connections per client address."""

    def __init__(self, app: Any, limits: ServeLimits, **kwargs: Any) -> None:
        super().__init__(
            app,
            http=GuardedProtocol,
            timeout_keep_alive=int(max(1, limits.idle_timeout)),
            h11_max_incomplete_event_size=limits.max_head_bytes,
            timeout_graceful_shutdown=2,
            server_header=False,
            log_level="warning",
            **kwargs,
        )
        self.limits = limits
        self.per_client: Counter[str] = Counter()


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the head deadline, the idle timeout from the first byte on, and the
    connection limits."""

    _admitted_as: str | None = None
    _spoken = False
    _head_deadline: asyncio.TimerHandle | None = None

    @property
    def _guard(self) -> GuardedConfig:
        return cast(GuardedConfig, self.config)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard, client = self._guard, (self.client[0] if self.client else "")
        if len(self.connections) > guard.limits.max_connections:
            return self._refuse(SERVER_FULL)
        if guard.per_client[client] >= guard.limits.connections_per_client:
            return self._refuse(TOO_MANY_CONNECTIONS)
        guard.per_client[client] += 1
        self._admitted_as = client
        self.timeout_keep_alive = guard.limits.idle_timeout  # type: ignore[assignment]  # a float will do
        # uvicorn times out idleness only after a first answer: a connection that never speaks too.
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_deadline()
        if self._admitted_as is not None:
            self._guard.per_client[self._admitted_as] -= 1
            if self._guard.per_client[self._admitted_as] <= 0:
                del self._guard.per_client[self._admitted_as]
            self._admitted_as = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self._spoken and data.startswith(HTTP2_PREFACE):
            return self._refuse(HTTP2_REFUSED)  # h11 would read it as a request named PRI
        self._spoken = True
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm_head_deadline()  # the head is in: the body's deadline is the app's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_deadline()  # the next request on this connection has its own

    def send_400_response(self, msg: str) -> None:
        """The parser's refusal (any malformed head, an HTTP/2 preface among them), as JSON."""
        self.logger.info("refused a malformed request: %s", msg)
        self.transport.write(
            raw_answer(400, "Bad Request", {"error": "bad_request", "message": "Malformed HTTP/1.1 request."})
        )
        self.transport.close()

    def _refuse(self, answer: bytes) -> None:
        self.transport.write(answer)
        self.transport.close()

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        self._head_deadline = self.loop.call_later(self._guard.limits.head_timeout, self._head_too_slow)

    def _disarm_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._refuse(HEAD_TOO_SLOW)


Lifespan = Literal["on", "off"]


def server_for(app: Any, limits: ServeLimits, host: str, port: int, lifespan: Lifespan) -> uvicorn.Server:
    return uvicorn.Server(GuardedConfig(app, limits, host=host, port=port, lifespan=lifespan))


def run(app: Any, host: str, port: int, limits: ServeLimits, *, lifespan: Lifespan = "off") -> None:
    """Serve ``app`` until interrupted (``lifespan="on"`` for an app with startup and shutdown steps)."""
    server_for(app, limits, host, port, lifespan).run()


@contextlib.contextmanager
def running_in_thread(
    app: Any, limits: ServeLimits, host: str = "127.0.0.1", *, lifespan: Lifespan = "off"
) -> Iterator[tuple[str, int]]:
    """``app`` served on a free port by a thread of this process (tests); yields the address."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    server = server_for(app, limits, host, 0, lifespan)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True)
    thread.start()
    try:
        while not server.started and thread.is_alive():
            threading.Event().wait(0.01)
        yield host, int(listener.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
