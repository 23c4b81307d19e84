"""Direct invocations (Step Functions, other trusted IAM callers). There is no authorizer on this path:
the IAM permission to invoke the function is the trust, so the payload must name its ``context_id``.

Payload: ``{"context_id": "acme", "request": {...}, "correlation_id": "...", "session_id": "...",
"idempotency_key": "..."}`` (a workflow passes its execution id and the state's name as the key).
Result: ``{"statusCode": N, "body": {...}}`` with the same bodies the API returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..context import CallerContext
from ..models.vocabulary import empty_dict
from .responses import describe_validation, error_status_body
from .wire import answer_body


class DirectInvocation(BaseModel):
    # Built by the first direct invocation (defer_build): a function behind the API never needs it.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    context_id: str = Field(min_length=1)
    request: dict[str, Any] = Field(default_factory=empty_dict)
    correlation_id: str | None = None
    session_id: str | None = None
    idempotency_key: str | None = None


def handle_direct(
    event: Mapping[str, Any], serve: Callable[[CallerContext, DirectInvocation], BaseModel], logger: Any
) -> dict[str, Any]:
    try:
        invocation = DirectInvocation.model_validate(event)
    except ValidationError as error:
        return {"statusCode": 422, "body": describe_validation(error.errors())}
    if invocation.correlation_id:
        logger.set_correlation_id(invocation.correlation_id)
    try:
        context = CallerContext(invocation.context_id)
        logger.append_keys(context_id=context.context_id)
        return {"statusCode": 200, "body": answer_body(serve(context, invocation))}
    except Exception as error:  # the request's own refusal (door_validated) is a 422 here too
        status, body, _ = error_status_body(error, logger)
        return {"statusCode": status, "body": body}
