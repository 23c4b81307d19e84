"""``retrieval serve``: the API on 127.0.0.1:3000, as ``sam local start-api`` would serve it.

Each HTTP request becomes a REST API proxy event for the function that owns its route. A development
authorizer stands in for the deployed one: ``Authorization: Bearer dev:acme`` (or ``dev:acme,globex``,
optionally ``dev:acme:5`` for a session-limit claim) becomes the claims the real authorizer would pass.
No token, or any other token, is a 401 (as API Gateway answers before the function runs). Bedrock's
Retrieve route is ``AWS_IAM`` instead: SigV4 with the dev credentials ``dev-<context>`` / ``dev-secret``
(``sigv4.py``); anything else there is an ``AccessDeniedException``.

Like API Gateway it answers a request it cannot turn into an event itself: 400 for a Content-Length it
cannot trust (not digits, absurdly long, or two that disagree) or a body that is not UTF-8, 413 past API
Gateway's 10 MB payload limit, 403 for an unknown route or an undeclared method, all with the template's
gateway-response bodies (docs/openapi.json's ErrorBody) and, like every gateway response there,
``Access-Control-Allow-Origin``; even the HTTP parser's own refusals are JSON. It answers a CORS preflight
(OPTIONS) of a route as the template's ``Cors`` mock integration does (``retrieval_core.entrypoints.cors``).
A connection must send its request head within ``HEAD_TIMEOUT_SECONDS`` and may idle at most
``IDLE_TIMEOUT_SECONDS`` (slowloris and idle sockets are closed); requests run on a bounded pool of
``WORKERS`` threads with ``QUEUED`` more waiting, past which a connection is answered 429 at once.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import re
import socket
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from retrieval_core.entrypoints.bedrock import RESOURCE as KB_RESOURCE

from . import sigv4
from .lambda_runtime import add_show_metrics_flag

ROUTES: list[tuple[str, re.Pattern[str], str, str]] = [
    ("POST", re.compile(r"^/v1/retrieve$"), "retrieve", "/v1/retrieve"),
    ("GET", re.compile(r"^/v1/sessions/(?P<session_id>[^/]+)$"), "retrieve", "/v1/sessions/{session_id}"),
    ("GET", re.compile(r"^/v1/documents$"), "retrieve", "/v1/documents"),
    ("GET", re.compile(r"^/v1/documents/(?P<key>[^/]+)$"), "retrieve", "/v1/documents/{key}"),
    ("GET", re.compile(r"^/v1/graph/path$"), "graph_path", "/v1/graph/path"),
    ("GET", re.compile(r"^/v1/why/(?P<proposition_id>[^/]+)$"), "why_explain", "/v1/why/{proposition_id}"),
    ("POST", re.compile(r"^/knowledgebases/(?P<knowledgeBaseId>[^/]+)/retrieve$"), "retrieve", KB_RESOURCE),
]
DEV_TOKEN = re.compile(r"^Bearer dev:(?P<contexts>[a-z0-9_,-]+)(?::(?P<limit>\d+))?$")
MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit
BODY_READ_TIMEOUT_SECONDS = 5.0
HEAD_TIMEOUT_SECONDS = 10.0
IDLE_TIMEOUT_SECONDS = 5.0
MAX_LENGTH_DIGITS = 12
WORKERS = 16
QUEUED = 128
LISTEN_BACKLOG = 128
# The template's gateway responses (template.yaml, GatewayResponses).
UNAUTHORIZED_BODY = {
    "error": "unauthenticated",
    "message": "Missing or invalid credentials: send a valid token in the Authorization header.",
}
MISSING_ROUTE_BODY = {"error": "gateway_error", "message": "Missing Authentication Token"}


class BadRequestBodyError(Exception):
    """The request's body cannot become an event: API Gateway would refuse it too."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": "bad_request" if status == 400 else "payload_too_large", "message": message}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument(
        "--allow-non-loopback", action="store_true", help="Allow binding an address other than loopback."
    )
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def dev_claims(authorization: str | None) -> dict[str, str] | None:
    match = DEV_TOKEN.fullmatch(authorization or "")
    if match is None:
        return None
    claims = {"principalId": "dev", "context_id": match["contexts"]}
    if match["limit"]:
        claims["session_limit"] = match["limit"]
    return claims


def proxy_event(
    method: str, raw_path: str, headers: dict[str, str], body: str | None
) -> tuple[str, dict[str, Any]] | None:
    """The function name and REST proxy event for a request, or None when no route matches."""
    url = urlsplit(raw_path)
    for route_method, pattern, function, resource in ROUTES:
        match = pattern.fullmatch(url.path)
        if match and route_method == method:
            query = parse_qs(url.query, keep_blank_values=True)
            event = {
                "resource": resource,
                "path": url.path,
                "httpMethod": method,
                "headers": headers,
                "multiValueHeaders": {k: [v] for k, v in headers.items()},
                "queryStringParameters": {k: v[-1] for k, v in query.items()} or None,
                "multiValueQueryStringParameters": query or None,
                "pathParameters": match.groupdict() or None,
                "requestContext": {
                    "resourcePath": resource,
                    "httpMethod": method,
                    "path": url.path,
                    "stage": "local",
                    "requestId": str(uuid.uuid4()),
                    "authorizer": dev_claims(headers.get("Authorization")),
                },
                "body": body,
                "isBase64Encoded": False,
            }
            return function, event
    return None


class _Handler(BaseHTTPRequestHandler):
    server_version = "retrieval-serve"
    timeout = IDLE_TIMEOUT_SECONDS  # each read of the socket; the whole head has HEAD_TIMEOUT_SECONDS

    def handle_one_request(self) -> None:
        """One request, its head read within ``HEAD_TIMEOUT_SECONDS`` in all (a client that sends a byte
        every few seconds is cut off, not only one that goes silent)."""
        watchdog = threading.Timer(HEAD_TIMEOUT_SECONDS, self._cut_off)
        watchdog.daemon = True
        watchdog.start()
        self._watchdog = watchdog
        try:
            super().handle_one_request()
        finally:
            watchdog.cancel()

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        self._watchdog.cancel()  # the head is in: the body has its own timeout
        return parsed

    def _cut_off(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The HTTP parser's refusals as API Gateway answers them: JSON, and an undeclared method as an
        unknown route (403), not an HTML 501."""
        if code == HTTPStatus.NOT_IMPLEMENTED:
            self.close_connection = True
            return self._reply(403, [], json.dumps(MISSING_ROUTE_BODY))
        self.close_connection = True
        body = {"error": "bad_request", "message": message or HTTPStatus(code).phrase}
        self._reply(code, [], json.dumps(body))

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_OPTIONS(self) -> None:
        from retrieval_core.entrypoints.cors import preflight_headers

        path = urlsplit(self.path).path
        if not any(pattern.fullmatch(path) for _, pattern, _, _ in ROUTES):
            return self._gateway_reply(403, MISSING_ROUTE_BODY)
        self._reply(200, list(preflight_headers(_allowed_origin()).items()), "{}")

    def _serve(self, method: str) -> None:
        from .lambda_runtime import invoke

        try:
            body = self._read_body()
        except BadRequestBodyError as refused:
            self.close_connection = True
            return self._gateway_reply(refused.status, refused.body)
        headers = {k: v for k, v in self.headers.items()}
        routed = proxy_event(method, self.path, headers, body)
        if routed is None:
            return self._gateway_reply(403, MISSING_ROUTE_BODY)
        function, event = routed
        if event["resource"] == KB_RESOURCE:
            identity = sigv4.verified_identity(
                method, self.path, headers, (body or "").encode(), event["pathParameters"]["knowledgeBaseId"]
            )
            if identity is None:
                return self._reply(*sigv4.DENIED, sigv4.denied_body())
            event["requestContext"].update(authorizer=None, identity=identity)
        elif event["requestContext"]["authorizer"] is None:
            return self._gateway_reply(401, UNAUTHORIZED_BODY)
        response = invoke(function, event)
        self._reply(response["statusCode"], response_headers(response), response.get("body") or "")

    def _read_body(self) -> str | None:
        values = {value.strip() for value in self.headers.get_all("Content-Length") or []}
        if not values:
            return None
        if len(values) > 1:
            raise BadRequestBodyError(400, "The request carries conflicting Content-Length headers.")
        declared = values.pop()
        if not declared.isdigit() or len(declared) > MAX_LENGTH_DIGITS:
            raise BadRequestBodyError(400, "Content-Length must be a non-negative integer.")
        length = int(declared)
        if length > MAX_BODY_BYTES:
            raise BadRequestBodyError(413, f"The body may be at most {MAX_BODY_BYTES} bytes.")
        if length == 0:
            return None
        self.connection.settimeout(BODY_READ_TIMEOUT_SECONDS)
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            raw = b""
        if len(raw) < length:
            raise BadRequestBodyError(400, "The body is shorter than its Content-Length.")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequestBodyError(400, "The body must be UTF-8 encoded JSON.") from None

    def _gateway_reply(self, status: int, body: dict[str, str]) -> None:
        """An answer API Gateway gives itself (no function ran): the template's gateway responses."""
        from retrieval_core.entrypoints.cors import ALLOW_ORIGIN

        self._reply(status, [(ALLOW_ORIGIN, _allowed_origin())], json.dumps(body))

    def _reply(self, status: int, headers: list[tuple[str, str]], body: str) -> None:
        payload = body.encode("utf-8")
        self.send_response(status)
        if not any(name.lower() == "content-type" for name, _ in headers):
            headers = [("Content-Type", "application/json"), *headers]
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.address_string()} {format % args}\n")


def response_headers(response: dict[str, Any]) -> list[tuple[str, str]]:
    """A proxy response's ``headers`` and ``multiValueHeaders`` (where Powertools puts ``Retry-After``),
    merged as API Gateway merges them: a name in both keeps the multi-value list, one line per value."""
    multi = {
        str(k): [str(v) for v in values] for k, values in (response.get("multiValueHeaders") or {}).items()
    }
    single = [(str(k), str(v)) for k, v in (response.get("headers") or {}).items() if str(k) not in multi]
    return single + [(name, value) for name, values in multi.items() for value in values]


def _allowed_origin() -> str:
    from retrieval_core.bootstrap import container

    return container().settings.cors_allow_origin


TOO_MANY_REQUESTS = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\n"
    b'Content-Length: 54\r\n\r\n{"error": "throttled", "message": "Too Many Requests"}'
)


class _Server(HTTPServer):
    """Requests on a bounded pool: ``WORKERS`` threads, ``QUEUED`` connections waiting, then 429."""

    request_queue_size = LISTEN_BACKLOG  # the default of 5 resets most of 50 concurrent connections

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="serve")
        self._slots = threading.BoundedSemaphore(WORKERS + QUEUED)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(TOO_MANY_REQUESTS)
            self.shutdown_request(request)
            return
        self._pool.submit(self._work, request, client_address)

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self._slots.release()

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


def run(args: argparse.Namespace) -> int:
    if not args.allow_non_loopback and not _is_loopback(args.host):
        print(
            f"retrieval serve: refusing to bind {args.host}: only loopback is allowed "
            "(pass --allow-non-loopback to override)",
            file=sys.stderr,
        )
        return 2
    from .environment import use_local_stack_env
    from .lambda_runtime import FUNCTION_OUTPUT, show_metrics

    use_local_stack_env()
    show_metrics(args.show_metrics)
    server = _Server((args.host, args.port), _Handler)
    print(
        f"serving the API on http://{args.host}:{args.port} (dev token: 'Authorization: Bearer dev:acme')",
        flush=True,
    )
    # From here on stdout is the functions' output for the whole server, not per request: requests run
    # on threads, and a per-request redirect could end while another request is still printing.
    with contextlib.redirect_stdout(FUNCTION_OUTPUT):
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
