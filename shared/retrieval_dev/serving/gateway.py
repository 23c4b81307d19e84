"""``retrieval serve``'s ASGI app: API Gateway in front of the functions, as ``sam local start-api`` would
be. A request is read (its body within the body deadline, at most API Gateway's 10 MB, UTF-8), then
``Gateway.dispatch`` answers it: the one place a request is routed, authorized and handed to a function
(a throttle or a static page belongs there too).

The development authorizer stands in for the deployed one: ``Authorization: Bearer dev:acme`` (or
``dev:acme,globex``, optionally ``dev:acme:5`` for a session-limit claim) becomes the claims the real
authorizer would pass; no token, or any other token, is a 401 before the function runs, and an
``X-Context-Id`` outside the token's contexts a 403 (the deployed authorizer's Deny; both decide with
``retrieval_core.entrypoints.token_contexts``). Bedrock's Retrieve
route is ``AWS_IAM`` instead: SigV4 with the dev credentials ``dev-<context>`` / ``dev-secret``
(``retrieval_dev.cli.sigv4``); anything else there is an ``AccessDeniedException``. An unknown route or an
undeclared method is 403 with the template's gateway-response body, a CORS preflight (OPTIONS) of a route
is answered as the template's ``Cors`` mock integration does. CORS is granted only to configured origins
(``cors_for``: none by default), and ``serving/local_guard.py`` refuses foreign ``Host`` and ``Origin``
values before a request reaches the gateway.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .containers import FunctionCrashedError, Functions, FunctionThreads
from .routes import (
    ACCESS_DENIED_BODY,
    CRASHED_FUNCTION_BODY,
    MAX_BODY_BYTES,
    MISSING_ROUTE_BODY,
    SIGV4_RESOURCES,
    UNAUTHORIZED_BODY,
    is_routed_path,
    proxy_event,
)
from .routes import response_headers as proxy_response_headers
from .server import ServeLimits
from .usage_gate import RETRY_AFTER_SECONDS, UsageGate

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    """The path and query string exactly as sent (percent-encoded), as API Gateway passes them on."""
    headers: dict[str, str]
    body: str | None


@dataclass(frozen=True)
class Answer:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: str = ""
    close: bool = False


class RefusedRequestError(Exception):
    """The request cannot become an event: API Gateway would refuse it too."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": "payload_too_large" if status == 413 else "bad_request", "message": message}


class ClientGoneError(Exception):
    """The client closed the connection before its request was whole: nobody to answer."""


class Gateway:
    def __init__(
        self,
        limits: ServeLimits,
        usage_gate: UsageGate | None = None,
        functions: Functions | None = None,
        cors_origins: frozenset[str] = frozenset(),
    ) -> None:
        self.limits = limits
        self.usage_gate = usage_gate
        self.functions = functions or FunctionThreads(limits.workers)
        self.cors_origins = cors_origins
        """The origins a cross-origin page may read answers from (none by default: the workbench is
        same-origin and needs no CORS)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            answer = await self.dispatch(await read_request(scope, receive, self.limits))
        except RefusedRequestError as refused:
            answer = gateway_answer(refused.status, refused.body, close=True)
        except ClientGoneError:
            return
        origin = dict(scope["headers"]).get(b"origin", b"").decode("latin-1")
        await reply(send, cors_for(answer, origin, self.cors_origins))

    async def dispatch(self, request: Request) -> Answer:
        """The one place a whole request is answered."""
        from retrieval_dev.cli import sigv4

        if request.method == "OPTIONS":
            return preflight(request)
        if request.method == "GET" and (page := workbench_page(request)) is not None:
            return page
        routed = proxy_event(request.method, request.target, request.headers, request.body)
        if routed is None:
            return gateway_answer(403, MISSING_ROUTE_BODY)
        function, event = routed
        if event["resource"] in SIGV4_RESOURCES:
            from retrieval_core.entrypoints.bedrock import AGENT_OPERATIONS, AGENT_WRITES

            path_id = (event["pathParameters"] or {}).get("knowledgeBaseId")
            identity = sigv4.verified_identity(
                request.method,
                request.target,
                request.headers,
                (request.body or "").encode(),
                lambda context: _grants(context, path_id),
                writes=AGENT_OPERATIONS.get((request.method, event["resource"])) in AGENT_WRITES,
            )
            if identity is None:
                return Answer(*sigv4.DENIED, sigv4.denied_body())
            event["requestContext"].update(authorizer=None, identity=identity)
        elif event["requestContext"]["authorizer"] is None:
            return gateway_answer(401, UNAUTHORIZED_BODY)
        elif not selects_within_token(event):
            return gateway_answer(403, ACCESS_DENIED_BODY)
        # Metered on the event loop, before a worker is taken: a flood's 429s never wait behind work.
        refused = self.usage_gate.refusal(event) if self.usage_gate else None
        if refused is not None:
            return gateway_answer(429, refused, extra_headers=[("Retry-After", RETRY_AFTER_SECONDS)])
        try:
            response = await self.functions.invoke(function, event)
        except FunctionCrashedError:
            return gateway_answer(502, CRASHED_FUNCTION_BODY)
        return Answer(response["statusCode"], proxy_response_headers(response), response.get("body") or "")

    def close(self) -> None:
        self.functions.close()


def selects_within_token(event: dict[str, Any]) -> bool:
    """False when ``X-Context-Id`` names a context the dev token does not hold: the deployed authorizer
    answers that with a Deny (403 ACCESS_DENIED, before any function or usage plan), by the same rule."""
    from retrieval_core.entrypoints.token_contexts import ContextNotGrantedError, selected_context

    try:
        selected_context(event["requestContext"]["authorizer"]["context_id"].split(","), event.get("headers"))
    except ContextNotGrantedError:
        return False
    return True


async def read_request(scope: Scope, receive: Receive, limits: ServeLimits) -> Request:
    # h11 bounds a head that arrives in parts; one that arrives whole is bounded here.
    if sum(len(name) + len(value) + 4 for name, value in scope["headers"]) > limits.max_head_bytes:
        raise RefusedRequestError(431, f"The request's headers may be at most {limits.max_head_bytes} bytes.")
    headers = header_dict(scope["headers"])
    declared = headers.get("Content-Length")
    if declared is not None and int(declared) > MAX_BODY_BYTES:  # h11 has checked it is digits
        raise RefusedRequestError(413, f"The body may be at most {MAX_BODY_BYTES} bytes.")
    raw = await read_body(receive, limits.body_timeout)
    try:
        body = raw.decode("utf-8") if raw else None
    except UnicodeDecodeError:
        raise RefusedRequestError(400, "The body must be UTF-8 encoded JSON.") from None
    query = scope["query_string"].decode("latin-1")
    target = scope["raw_path"].decode("latin-1") + (f"?{query}" if query else "")
    return Request(scope["method"], target, headers, body)


async def read_body(receive: Receive, body_timeout: float) -> bytes:
    """The whole body within ``body_timeout`` seconds in all: trickling bytes does not extend it."""
    chunks: list[bytes] = []
    size, more = 0, True
    try:
        async with asyncio.timeout(body_timeout):
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise ClientGoneError
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise RefusedRequestError(413, f"The body may be at most {MAX_BODY_BYTES} bytes.")
                chunks.append(chunk)
                more = message.get("more_body", False)
    except TimeoutError:
        raise RefusedRequestError(
            400, f"The body is shorter than its Content-Length (or took more than {body_timeout:g} s)."
        ) from None
    return b"".join(chunks)


def header_dict(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """Request headers as a REST proxy event carries them. uvicorn gives names in lower case; they are
    spelt as clients send them (``Authorization``, ``X-Amz-Date``), and a repeated name keeps its last
    value, as API Gateway's ``headers`` does."""
    return {canonical_name(name.decode("latin-1")): value.decode("latin-1") for name, value in raw}


def canonical_name(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-"))


def workbench_page(request: Request) -> Answer | None:
    """The workbench's page or one of its files (``retrieval_dev.workbench``), or None for any other
    path: no function runs for them and no token is needed (the page asks for one)."""
    from urllib.parse import urlsplit

    from retrieval_dev.workbench import page_asset

    asset = page_asset(urlsplit(request.target).path)
    return None if asset is None else Answer(200, asset.headers, asset.body)


def preflight(request: Request) -> Answer:
    """The functions' preflight answer (``cors.preflight_response``), granting no origin: ``cors_for``
    grants the configured ones, as it does on every answer."""
    from retrieval_core.entrypoints.cors import preflight_response

    if not is_routed_path(request.target):
        return gateway_answer(403, MISSING_ROUTE_BODY)
    response = preflight_response(None)
    return Answer(response["statusCode"], list(response["headers"].items()), response["body"])


def gateway_answer(
    status: int,
    body: dict[str, str],
    *,
    close: bool = False,
    extra_headers: list[tuple[str, str]] | None = None,
) -> Answer:
    """An answer API Gateway gives itself (no function ran): the template's gateway responses (their
    CORS grant is ``cors_for``'s)."""
    return Answer(status, list(extra_headers or []), json.dumps(body), close)


def cors_for(answer: Answer, origin: str, allowed: frozenset[str]) -> Answer:
    """``answer`` with CORS granted to ``origin`` only when it is configured (``cors.granted_origin``, as
    the functions decide it): whatever grant the functions made under their own settings is replaced by
    serve's (``--cors-origin`` and ``RETRIEVAL_CORS_ORIGINS``), so no other page may read an answer."""
    from retrieval_core.entrypoints.cors import CORS_RESPONSE_HEADERS, granted_origin, response_headers

    headers = [(name, value) for name, value in answer.headers if name.lower() not in CORS_RESPONSE_HEADERS]
    headers += response_headers(granted_origin(origin, allowed)).items()
    return Answer(answer.status, headers, answer.body, answer.close)


async def reply(send: Send, answer: Answer) -> None:
    payload = answer.body.encode("utf-8")
    headers = answer.headers
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers = [("Content-Type", "application/json"), *headers]
    headers = [*headers, ("Content-Length", str(len(payload)))]
    if answer.close:
        headers.append(("Connection", "close"))
    await send(
        {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _grants(context: str, knowledge_base: str | None) -> bool:
    """The dev IAM policy of ``dev-<context>``: the knowledge base ``context`` is served as (by id or
    ARN), and the routes that name no knowledge base (RetrieveAndGenerate, which only answers;
    ListKnowledgeBases, which lists the caller's)."""
    if knowledge_base is None:
        return True
    from urllib.parse import unquote

    from retrieval_core.bootstrap import container
    from retrieval_core.entrypoints.bedrock.caller import served_context
    from retrieval_core.errors import ForbiddenError

    settings = container().settings
    try:
        return (
            served_context(
                unquote(knowledge_base), container().knowledge_bases.context_of, settings.aws_region
            )
            == context
        )
    except ForbiddenError:
        return False
