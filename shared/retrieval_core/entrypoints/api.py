"""The API Gateway side of every function: one resolver factory with validation, error handlers and the
authenticated caller, so each handler module only declares its routes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError as RouteNotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from .. import backend_calls
from ..bootstrap import container
from ..context import CallerContext
from .bedrock import AGENT_OPERATIONS, GENERATE_ROUTES
from .bedrock import RESOURCE as KNOWLEDGE_BASE_RESOURCE
from .claims import Caller, caller_from_event
from .cors import ORIGIN_HEADER, granted_origin, preflight_response, with_cors
from .direct import DirectInvocation, handle_direct
from .instruments import Handler, Instruments, count_errors
from .responses import error_status_body
from .wire import answer_json, header_value, parse_json, require_json

CALLER_KEY = "caller"
PREFLIGHT_METRIC = "Preflights"
OWN_PROTOCOL_RESOURCES = frozenset({KNOWLEDGE_BASE_RESOURCE, *GENERATE_ROUTES})

Model = TypeVar("Model", bound=BaseModel)


def door_validated(model: type[Model], data: Any, context: Mapping[str, Any] | None = None) -> Model:
    """``data`` (a request's body, its parameters, a direct invocation's request) as ``model``; refused
    as the caller's invalid request (``RequestValidationError``, a 422 naming each field)."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as error:
        raise RequestValidationError(error.errors(include_url=False)) from None


def build_resolver(logger: Logger) -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, json_body_deserializer=parse_json)

    @app.exception_handler(RequestValidationError)
    def _invalid(error: RequestValidationError) -> Response[str]:
        status, body, _ = error_status_body(error, logger)
        return json_response(status, body)

    @app.exception_handler(RouteNotFoundError)
    def _no_route(_: RouteNotFoundError) -> Response[str]:
        # API Gateway routed it here, but a path parameter has characters the resolver's route pattern
        # does not take (a '/' in an id, say): nothing by that name exists.
        return json_response(404, {"error": "not_found", "message": "Not found."})

    @app.exception_handler(Exception)
    def _failed(error: Exception) -> Response[str]:
        status, body, headers = error_status_body(error, logger)
        return json_response(status, body, headers)

    return app


def resolve(
    app: APIGatewayRestResolver, event: dict[str, Any], context: Any, logger: Logger, context_claim: str
) -> dict[str, Any]:
    """Authenticate from the authorizer claims first (401/403 before any body is read), then route.
    A route of another protocol (Bedrock's Retrieve, ``bedrock-agent``'s operations) authenticates and
    answers errors its own way."""
    if event.get("resource") in OWN_PROTOCOL_RESOURCES:
        return app.resolve(event, context)
    if (event.get("httpMethod"), event.get("resource")) in AGENT_OPERATIONS:
        from .bedrock.agent import serve_agent  # on the first bedrock-agent request

        return serve_agent(event, logger)
    try:
        caller = caller_from_event(event, context_claim)
        json_headers = require_json(str(event.get("httpMethod") or ""), event.get("headers"))
    except Exception as error:
        status, body, headers = error_status_body(error, logger)
        return {
            "statusCode": status,
            "headers": {"Content-Type": "application/json", **headers},
            "body": json.dumps(body),
            "isBase64Encoded": False,
        }
    if json_headers is not None:
        event = {**event, "headers": json_headers}
    logger.append_keys(context_id=caller.context.context_id)
    app.append_context(**{CALLER_KEY: caller})
    return app.resolve(event, context)


def current_caller(app: APIGatewayRestResolver) -> Caller:
    caller: Caller = app.context[CALLER_KEY]
    return caller


def validated_body(
    model: type[BaseModel], parameter: str, context: Mapping[str, Any] | None = None
) -> Callable[..., Response[Any]]:
    """A route middleware that validates the JSON body as ``model`` and hands it to the route as its
    ``parameter``: what Powertools' validation middleware does for a route whose one input is a body,
    with the same errors (a missing body, a malformed one, each offending field), without its generic
    per-request work (~0.1 ms a request, ~0.7 ms with a 384-number query vector: docs/PERFORMANCE.md).
    The route declares ``enable_validation=False`` and keeps ``parameter: model`` in its signature, so
    the OpenAPI document still describes the body. ``context``: the validation context (retrieve's: the
    modes the container serves)."""

    def middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
        try:
            data = app.current_event.json_body
        except json.JSONDecodeError as error:
            raise RequestValidationError(
                [
                    {
                        "type": "json_invalid",
                        "loc": ("body", error.pos),
                        "msg": "JSON decode error",
                        "ctx": {"error": error.msg},
                    }
                ]
            ) from error
        if data is None:
            raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required"}])
        # Powertools' own key for the route's arguments (its validation middleware writes it too).
        validated = door_validated(model, data, context)
        app.append_context(_route_args={**app.context.get("_route_args", {}), parameter: validated})
        return next_middleware(app)

    return middleware


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response[str]:
    return Response(
        status_code=status,
        content_type="application/json",
        body=json.dumps(body),
        headers=headers or {},
    )


def model_response(model: type[BaseModel]) -> dict[int, Any]:
    """The OpenAPI 200 response of a route that answers ``serialised(model)``."""
    return {200: {"description": "Successful Response", "content": {"application/json": {"model": model}}}}


def serialised(answer: BaseModel) -> Response[str]:
    """A route's answer as JSON text, written by pydantic-core in one pass. Returning the model would
    have Powertools convert it to Python objects, re-validate them, then ``json.dumps`` them: ~3x the
    work, on every request. The model was validated when it was built."""
    return Response(status_code=200, content_type="application/json", body=answer_json(answer))


def api_function() -> tuple[Instruments, APIGatewayRestResolver]:
    """An API function module's instruments and the resolver its routes are declared on."""
    tools = Instruments.create()
    return tools, build_resolver(tools.logger)


def api_answer(
    app: APIGatewayRestResolver,
    event: dict[str, Any],
    context: Any,
    logger: Logger,
    *,
    cors_origins: Collection[str],
    context_claim: str,
) -> dict[str, Any]:
    """An API Gateway event's answer with its CORS grant (``cors``): a preflight (OPTIONS, which API
    Gateway passes on unauthenticated) is answered here, before any caller is read; every other answer,
    errors included, names the request's origin when it is a configured one."""
    # No configured origin (the default): no grant to look for, and nothing to add to the answer.
    granted = (
        granted_origin(header_value(event.get("headers"), ORIGIN_HEADER), cors_origins)
        if cors_origins
        else None
    )
    if event.get("httpMethod") == "OPTIONS":
        return preflight_response(granted)
    answer = resolve(app, event, context, logger, context_claim)
    return answer if granted is None else with_cors(answer, granted)


def lambda_entry(
    app: APIGatewayRestResolver,
    serve_direct: Callable[[CallerContext, DirectInvocation], BaseModel],
    tools: Instruments,
) -> Handler:
    """The function's ``lambda_handler``: API Gateway events go to ``app``; direct invocations (no
    ``requestContext``, IAM-trusted) go to ``serve_direct``. Every API answer, errors included, carries
    the CORS grant of its origin (``api_answer``). Logs carry the request's correlation id, and each
    request ends with one ``answered`` line (``Instruments.answered``).
    Backend calls share a deadline taken from the invocation's remaining time (``backend_calls``)."""

    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        started = time.perf_counter()
        # API Gateway's request id, read directly (Powertools' correlation path runs a JMESPath query).
        tools.logger.set_correlation_id((event.get("requestContext") or {}).get("requestId"))
        settings = container().settings
        with (
            backend_calls.for_invocation(context, settings.request_deadline_share),
            backend_calls.tallied() as calls,
        ):
            # No API Gateway request: an IAM-trusted caller invoked the function itself.
            direct = "requestContext" not in event and "httpMethod" not in event
            if direct:
                response = handle_direct(event, serve_direct, tools.logger)
            else:
                response = api_answer(
                    app,
                    event,
                    context,
                    tools.logger,
                    cors_origins=settings.cors_origins,
                    context_claim=settings.context_claim,
                )
                if event.get("httpMethod") == "OPTIONS":  # how often browsers ask, each an invocation
                    tools.count(PREFLIGHT_METRIC)
        count_errors(tools.metrics, response["statusCode"])
        tools.answered(
            route="direct" if direct else str(event.get("resource")),
            status=response["statusCode"],
            latency_ms=(time.perf_counter() - started) * 1000,
            backend_calls=calls.value,
        )
        return response

    return tools.wrap(lambda_handler)
