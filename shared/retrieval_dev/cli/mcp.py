"""``retrieval mcp``: retrieve, graph_path, why_explain and session as MCP tools, over stdio (default) or
streamable HTTP (``--http [--port N]``, loopback only unless told otherwise; clients send the bearer
secret it prints at start-up, or ``--http-token``/``$RETRIEVAL_MCP_HTTP_TOKEN``; other Hosts are 421 and
other Origins, other localhost ports included, 403).

Local backend (``--token dev:acme``): the handlers in-process against the local stack, with the dev
tokens ``retrieval serve`` accepts. Remote backend (``--api-url URL`` with ``--token TOKEN`` or
``--sigv4``): a deployed API. Either way the context comes from the token, never from a tool argument.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

DEFAULT_HTTP_PORT = 3100
HTTP_TOKEN_ENV = "RETRIEVAL_MCP_HTTP_TOKEN"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token", help="Local: a dev token (dev:acme). Remote: the API's token.")
    parser.add_argument("--context", help="Which context, when the token allows several (X-Context-Id).")
    parser.add_argument("--api-url", help="Call a deployed API at this URL instead of the local handlers.")
    parser.add_argument(
        "--sigv4", action="store_true", help="Remote: sign with AWS credentials instead of a token."
    )
    parser.add_argument("--region", help="Remote with --sigv4: the API's region (default: AWS_REGION).")
    parser.add_argument("--http", action="store_true", help="Serve streamable HTTP instead of stdio.")
    parser.add_argument("--host", default="127.0.0.1", help="--http: the address to bind.")
    parser.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT, help="--http: the port.")
    parser.add_argument(
        "--allow-non-loopback", action="store_true", help="--http: allow binding a non-loopback address."
    )
    parser.add_argument(
        "--http-token",
        default=os.environ.get(HTTP_TOKEN_ENV),
        help=f"--http: the bearer secret clients must send (default: ${HTTP_TOKEN_ENV}, else one generated "
        "at start-up and printed once).",
    )
    from .serve import add_trust_flags

    add_trust_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..mcp.backends import BackendConfigError, LocalBackend, RemoteBackend
    from ..serving.server import is_loopback

    if args.http and not args.allow_non_loopback and not is_loopback(args.host):
        return _fail(f"refusing to bind {args.host}: only loopback is allowed (--allow-non-loopback)")
    try:
        if args.api_url:
            if args.context:
                return _fail("--context is for the local backend; a remote token names its own context")
            region = (args.region or os.environ.get("AWS_REGION") or "us-east-1") if args.sigv4 else None
            backend = RemoteBackend(args.api_url, token=args.token, sigv4_region=region)
        else:
            if not args.token:
                return _fail("give --token dev:CONTEXT (local handlers) or --api-url with --token/--sigv4")
            problem = _local_checkout()
            if problem is not None:
                return _fail(problem)
            from .environment import use_local_stack_env

            use_local_stack_env()
            backend = LocalBackend(args.token, args.context)
    except BackendConfigError as error:
        return _fail(str(error))

    from ..mcp.server import build_server, serve_http, serve_stdio

    server = build_server(backend)
    if args.http:
        serve_http(server, args.host, args.port, http_guard(args))
    else:
        import anyio

        anyio.run(serve_stdio, server)
    return 0


def http_guard(args: argparse.Namespace) -> Callable[[Any], Any]:
    """What ``--http`` puts in front of the MCP app: its own Host and Origin only (no other localhost
    port), and a bearer secret, generated and printed once when none is given."""
    import secrets

    from ..serving.local_guard import LocalGuard, local_addresses

    secret = args.http_token or secrets.token_urlsafe(32)
    addresses = local_addresses(args.host, args.port, args.allow_host, args.allow_origin)
    url = f"http://{args.host}:{args.port}/mcp"
    if args.http_token:
        print(f"MCP over streamable HTTP on {url} (bearer secret: the one given)", file=sys.stderr)
    else:
        print(f"MCP over streamable HTTP on {url}; send 'Authorization: Bearer {secret}'", file=sys.stderr)
    return lambda app: LocalGuard(app, addresses, bearer=secret)


def _local_checkout() -> str | None:
    """Why the local backend cannot run from here, or None once it can: it reads ``functions/`` and the
    stack's settings from the checkout this command was installed from (``retrieval_dev.project``), so
    an MCP host may start it in any directory. Checked at start-up: a server that listed its tools and
    then failed every call would hide the cause."""
    from .lambda_runtime import FUNCTIONS_DIR
    from .stack_check import StackUnavailableError, require_local_stack

    if not FUNCTIONS_DIR.is_dir():
        return f"no {FUNCTIONS_DIR}/ here or in the checkout: run it from the repository root"
    try:
        require_local_stack()
    except StackUnavailableError as error:
        return str(error)
    return None


def _fail(message: str) -> int:
    print(f"retrieval mcp: {message}", file=sys.stderr)
    return 2
