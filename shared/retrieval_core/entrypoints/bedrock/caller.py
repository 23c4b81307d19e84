"""Who may read which knowledge base: ``knowledgeBaseId`` (a ten-character id, or its ARN) names the
knowledge base a context is served as, and the caller gets that context only when an authority granted it.

- Behind the API's authorizer the claims must list that context (as ``X-Context-Id`` would pick it).
- Behind ``AWS_IAM`` (SigV4, what boto3 sends) API Gateway has already checked the caller's IAM policy
  against this very resource path (``.../POST/knowledgebases/ABCDE12345/retrieve``): an event that
  carries an IAM identity and no claims was granted the context that id serves.

Anything else is the same refusal: an id no context is served as, one granted to someone else, an ARN of
another region or account, a value that is not even well formed. Nothing tells them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from ...context import CallerContext
from ...errors import ForbiddenError, InvalidRequestError
from ...models.knowledge_bases import parse_reference
from ..claims import Caller, caller_from_event
from ..wire import CONTEXT_HEADER

NOT_GRANTED = "No authority granted this knowledge base."
ContextOf = Callable[[str], str | None]
"""A knowledge base id -> the context it serves, or None (``ports.KnowledgeBaseDirectory.context_of``)."""


def knowledge_base_caller(
    event: Mapping[str, Any],
    knowledge_base_id: str,
    claim: str,
    context_of: ContextOf,
    region: str,
) -> Caller:
    """The caller acting in the context the knowledge base serves; ``ForbiddenError`` (or
    ``UnauthenticatedError``) when no authority granted it."""
    request_context = event.get("requestContext") or {}
    principal = (request_context.get("identity") or {}).get("userArn")
    claims = request_context.get("authorizer")
    if not claims and (not isinstance(principal, str) or not principal):
        raise ForbiddenError(NOT_GRANTED)  # before any lookup: an anonymous caller learns nothing
    context_id = served_context(
        unquote(knowledge_base_id), context_of, region, request_context.get("accountId")
    )
    if claims:
        headers = {
            k: v for k, v in (event.get("headers") or {}).items() if k.lower() != CONTEXT_HEADER.lower()
        }
        return caller_from_event({**event, "headers": {**headers, CONTEXT_HEADER: context_id}}, claim)
    try:
        return Caller(CallerContext(context_id), principal=principal)
    except InvalidRequestError as malformed:
        raise ForbiddenError(NOT_GRANTED) from malformed


def served_context(value: str, context_of: ContextOf, region: str, account: str | None = None) -> str:
    """The context the id or ARN ``value`` is served as; ``ForbiddenError`` when none. An ARN must name
    this deployment's region (and, when the event says it, its account), as Bedrock's own would."""
    reference = parse_reference(value)
    if reference is None or reference.region not in (None, region):
        raise ForbiddenError(NOT_GRANTED)
    if reference.account is not None and account and reference.account != account:
        raise ForbiddenError(NOT_GRANTED)
    context_id = context_of(reference.knowledge_base_id)
    if context_id is None:
        raise ForbiddenError(NOT_GRANTED)
    return context_id
