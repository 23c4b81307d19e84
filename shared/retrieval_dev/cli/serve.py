"""``retrieval serve``: the API on 127.0.0.1:3000, as ``sam local start-api`` would serve it.

Each HTTP request becomes a REST API proxy event for the function that owns its route. A development
authorizer stands in for the deployed one: ``Authorization: Bearer dev:acme`` (or ``dev:acme,globex``,
optionally ``dev:acme:5`` for a session-limit claim) becomes the claims the real authorizer would pass.
No token, or any other token, is a 401 (as API Gateway answers before the function runs).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import re
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .lambda_runtime import add_show_metrics_flag

ROUTES: list[tuple[str, re.Pattern[str], str, str]] = [
    ("POST", re.compile(r"^/v1/retrieve$"), "retrieve", "/v1/retrieve"),
    ("GET", re.compile(r"^/v1/sessions/(?P<session_id>[^/]+)$"), "retrieve", "/v1/sessions/{session_id}"),
    ("GET", re.compile(r"^/v1/graph/path$"), "graph_path", "/v1/graph/path"),
    ("GET", re.compile(r"^/v1/why/(?P<proposition_id>[^/]+)$"), "why_explain", "/v1/why/{proposition_id}"),
]
DEV_TOKEN = re.compile(r"^Bearer dev:(?P<contexts>[a-z0-9_,-]+)(?::(?P<limit>\d+))?$")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument(
        "--allow-non-loopback", action="store_true", help="Allow binding an address other than loopback."
    )
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def dev_claims(authorization: str | None) -> dict[str, str] | None:
    match = DEV_TOKEN.match(authorization or "")
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
        match = pattern.match(url.path)
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

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        from .lambda_runtime import invoke

        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8") if length else None
        headers = {k: v for k, v in self.headers.items()}
        routed = proxy_event(method, self.path, headers, body)
        if routed is None:
            return self._reply(404, {}, json.dumps({"message": "Missing Authentication Token"}))
        function, event = routed
        if event["requestContext"]["authorizer"] is None:
            return self._reply(401, {}, json.dumps({"message": "Unauthorized"}))
        response = invoke(function, event)
        self._reply(response["statusCode"], response.get("headers") or {}, response.get("body") or "")

    def _reply(self, status: int, headers: dict[str, str], body: str) -> None:
        payload = body.encode("utf-8")
        self.send_response(status)
        headers = {"Content-Type": "application/json", **headers}
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.address_string()} {format % args}\n")


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
    server = ThreadingHTTPServer((args.host, args.port), _Handler)
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
