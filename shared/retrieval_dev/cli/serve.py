"""``retrieval serve``: the API on 127.0.0.1:3000, as ``sam local start-api`` would serve it.

Each HTTP request becomes a REST API proxy event for the function that owns its route
(``retrieval_dev.serving.gateway``: the dev authorizer, gateway responses, CORS), served by uvicorn with
a deadline for each request's head and body, an idle timeout and a cap on connections per client
(``retrieval_dev.serving.server``). The settings are read before the server starts: a deployment the
functions would refuse is refused here, with the reason, instead of serving empty answers. With
``--tiers FILE`` (``dev/tiers.json``) each context is metered on its usage tier as the deployed usage
plans meter it (``retrieval_dev.serving.usage_gate``): over its rate or quota, a 429 before the function runs.
The handlers run in ``--containers`` warm worker processes, one invocation at a time each, as Lambda runs
them (``retrieval_dev.serving.containers``); ``--containers 0`` runs them on threads of the serving process.
No page may use it (``retrieval_dev.serving.local_guard``): a ``Host`` other than its own address is a
421, a foreign ``Origin`` a 403, and CORS is granted only to ``--cors-origin`` (none by default).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..serving.server import ServeLimits, is_loopback
from .lambda_runtime import add_show_metrics_flag

if TYPE_CHECKING:
    from pydantic import ValidationError
    from retrieval_core.config import Settings

    from ..serving.containers import Functions
    from ..serving.usage_gate import UsageGate

DEFAULTS = ServeLimits()
DEFAULT_CONTAINERS = 4


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument(
        "--allow-non-loopback", action="store_true", help="Allow binding an address other than loopback."
    )
    add_trust_flags(parser)
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="A page origin (https://app.example.com) allowed to call the API and read its answers; "
        "repeatable. None by default (RETRIEVAL_CORS_ORIGINS, comma-separated, adds to them).",
    )
    add_limit_flags(parser)
    parser.add_argument(
        "--tiers",
        type=Path,
        help="Meter each context on its usage tier, from this JSON file (dev/tiers.json; docs/FAIRSHARE.md).",
    )
    parser.add_argument(
        "--containers",
        type=int,
        default=DEFAULT_CONTAINERS,
        help="Warm worker processes that run the functions, one invocation at a time each, as Lambda's "
        "containers do (0: on threads of the serving process, one interpreter for every request).",
    )
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def add_trust_flags(parser: argparse.ArgumentParser) -> None:
    """The Host and Origin allowlists' extras (``serving/local_guard.py``), shared with ``mcp --http``."""
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="Another Host value to answer (besides 127.0.0.1, localhost and [::1] with the port); "
        "repeatable.",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="Another Origin a browser page may send (besides this server's own); repeatable.",
    )


def cors_origins(args: argparse.Namespace, settings_origins: tuple[str, ...]) -> frozenset[str]:
    return frozenset(origin.lower().rstrip("/") for origin in [*args.cors_origin, *settings_origins])


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--head-timeout", type=float, default=DEFAULTS.head_timeout, help="Seconds.")
    parser.add_argument("--body-timeout", type=float, default=DEFAULTS.body_timeout, help="Seconds.")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULTS.idle_timeout, help="Seconds.")
    parser.add_argument("--connections-per-client", type=int, default=DEFAULTS.connections_per_client)


def limits_from(args: argparse.Namespace) -> ServeLimits:
    return ServeLimits(
        head_timeout=args.head_timeout,
        body_timeout=args.body_timeout,
        idle_timeout=args.idle_timeout,
        connections_per_client=args.connections_per_client,
    )


def run(args: argparse.Namespace) -> int:
    if not args.allow_non_loopback and not is_loopback(args.host):
        print(
            f"retrieval serve: refusing to bind {args.host}: only loopback is allowed "
            "(pass --allow-non-loopback to override)",
            file=sys.stderr,
        )
        return 2
    from pydantic import ValidationError

    from ..serving import server
    from ..serving.gateway import Gateway
    from ..serving.local_guard import LocalGuard, local_addresses
    from .environment import use_local_stack_env
    from .lambda_runtime import FUNCTION_OUTPUT, show_metrics

    use_local_stack_env()
    try:
        from retrieval_core.bootstrap import container

        container()
    except ValidationError as error:
        print(f"retrieval serve: not serving: {settings_problems(error)}", file=sys.stderr)
        return 2
    show_metrics(args.show_metrics)
    origins = cors_origins(args, container().settings.cors_origins)
    gateway = Gateway(limits_from(args), usage_gate(args.tiers), functions(args), origins)
    addresses = local_addresses(args.host, args.port, args.allow_host, [*args.allow_origin, *origins])
    print(f"serving the API on http://{args.host}:{args.port}", flush=True)
    print(dev_tokens(container().settings), flush=True)
    # From here on stdout is the functions' output for the whole server, not per request: requests run
    # on threads, and a per-request redirect could end while another request is still printing.
    with contextlib.redirect_stdout(FUNCTION_OUTPUT):
        try:
            server.run(LocalGuard(gateway, addresses), args.host, args.port, gateway.limits)
        finally:
            gateway.close()
    return 0


def dev_tokens(settings: Settings) -> str:
    """The contexts the index holds, each with the dev token that reads it (and the Bedrock route's
    access key), so the first request asks for data that is there."""
    from .contexts import SHOWN, ContextsUnreadableError, local_contexts

    try:
        contexts = local_contexts(settings)
    except ContextsUnreadableError as error:
        return (
            f"  (the index did not say which contexts it holds: {error}); dev tokens: 'Bearer dev:<context>'"
        )
    if not contexts:
        return (
            "  no context holds items yet (`make demo`, `retrieval load FILE`, `retrieval sync FOLDER "
            "--context C`); a dev token is 'Authorization: Bearer dev:<context>'"
        )
    lines = [
        "  contexts with items, and the dev token that reads each (Bedrock route: access key "
        "dev-<context>, secret dev-secret):"
    ]
    lines += [
        f"    {name:<24} {count:>9,} items   Authorization: Bearer dev:{name}"
        for name, count in list(contexts.items())[:SHOWN]
    ]
    if len(contexts) > SHOWN:
        lines.append(f"    ... and {len(contexts) - SHOWN} more")
    return "\n".join(lines)


def functions(args: argparse.Namespace) -> Functions | None:
    """The containers that run the handlers (None: the gateway's threads)."""
    if args.containers <= 0:
        return None
    from ..serving.containers import FunctionContainers

    return FunctionContainers(args.containers, show_metrics=args.show_metrics)


def usage_gate(tiers: Path | None) -> UsageGate | None:
    from ..serving.usage_gate import UsageGate
    from .tiers import TierAssignment

    return UsageGate(TierAssignment.from_file(tiers)) if tiers else None


def settings_problems(error: ValidationError) -> str:
    """Each refused setting by the variable that set it: ``RETRIEVAL_PAGING_TTL_SECONDS='2': ...``."""
    return "; ".join(
        f"RETRIEVAL_{'_'.join(str(part) for part in problem['loc']).upper()}={problem.get('input')!r}: "
        f"{problem['msg']}"
        for problem in error.errors()
    )
