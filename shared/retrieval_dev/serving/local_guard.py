"""What a local server trusts of a request before any route sees it (``retrieval serve`` and
``retrieval mcp --http``): no web page the developer visits may use it.

- ``Host`` must name the server itself: ``127.0.0.1``, ``localhost`` or ``[::1]`` with its port (plus
  the address it is bound to and any ``--allow-host``). Anything else is ``421 Misdirected Request``: a
  page at ``http://evil.example:3000/`` whose name resolves to 127.0.0.1 (DNS rebinding) sends its own
  name, and is refused.
- ``Origin``, when a browser sends one, must be the server's own (the same three names with its port)
  or one configured (``--allow-origin``, serve's CORS origins): another site, or a page on another
  localhost port, is ``403``.
- With a bearer secret (``retrieval mcp --http``), ``Authorization: Bearer <secret>`` is required
  (``401`` with ``WWW-Authenticate: Bearer``), compared in constant time.

Refusals are JSON and close nothing the client did not ask to close; a lifespan scope passes through."""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
MISDIRECTED = {"error": "misdirected_request", "message": "This server answers only for its own address."}
FOREIGN_ORIGIN = {"error": "forbidden", "message": "Requests from this origin are not allowed."}
UNAUTHENTICATED = {
    "error": "unauthenticated",
    "message": "Send the server's secret as 'Authorization: Bearer <secret>' (printed at start-up).",
}


@dataclass(frozen=True)
class LocalAddresses:
    hosts: frozenset[str]
    """``Host`` values accepted, lower case."""
    origins: frozenset[str]
    """``Origin`` values accepted, lower case."""


def local_addresses(
    bound: str, port: int, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = ()
) -> LocalAddresses:
    """The server's own names with its port, the bound address (unless a wildcard), and the extras: a
    ``--allow-host`` without a port gets the server's."""
    names = {*LOOPBACK_NAMES}
    if bound not in WILDCARD_BINDS:
        names.add(f"[{bound}]" if ":" in bound and not bound.startswith("[") else bound)
    hosts = {_with_port(name, port) for name in names}
    hosts |= {extra if _has_port(extra) else _with_port(extra, port) for extra in allow_hosts}
    if port == 80:  # a browser leaves the default port out of Host and Origin
        hosts |= names
    origins = {f"http://{host}" for host in hosts} | set(allow_origins)
    return LocalAddresses(
        frozenset(h.lower() for h in hosts), frozenset(o.lower().rstrip("/") for o in origins)
    )


def _has_port(host: str) -> bool:
    return host.rsplit("]", 1)[-1].count(":") == 1


def _with_port(name: str, port: int) -> str:
    return f"{name}:{port}"


class LocalGuard:
    def __init__(self, app: App, addresses: LocalAddresses, *, bearer: str | None = None) -> None:
        self.app = app
        self.addresses = addresses
        self._bearer = None if bearer is None else f"Bearer {bearer}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(dict(scope["headers"]))
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await _answer(send, *refusal)

    def refusal(
        self, headers: dict[bytes, bytes]
    ) -> tuple[int, dict[str, str], list[tuple[bytes, bytes]]] | None:
        """The status, body and extra headers of a refusal, or None to let the request through."""
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if host not in self.addresses.hosts:
            return 421, MISDIRECTED, []
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1").lower().rstrip("/") not in self.addresses.origins:
            return 403, FOREIGN_ORIGIN, []
        if self._bearer is not None and not hmac.compare_digest(
            headers.get(b"authorization", b""), self._bearer
        ):
            return 401, UNAUTHENTICATED, [(b"www-authenticate", b'Bearer realm="retrieval mcp"')]
        return None


async def _answer(send: Send, status: int, body: dict[str, str], extra: list[tuple[bytes, bytes]]) -> None:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
