"""Who may read which knowledge base: ``knowledgeBaseId`` names a context, and the caller gets it only
when an authority granted it.

- Behind the API's authorizer the claims must list that context (as ``X-Context-Id`` would pick it).
- Behind ``AWS_IAM`` (SigV4, what boto3 sends) API Gateway has already checked the caller's IAM policy
  against this very resource path (``.../POST/knowledgebases/acme/retrieve``): an event that carries an
  IAM identity and no claims was granted the path's context by IAM.

Anything else, and any context not granted, is the same refusal, whether that context exists or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...context import CallerContext
from ...errors import ForbiddenError, InvalidRequestError
from ..claims import Caller, caller_from_event
from ..headers import CONTEXT_HEADER


def knowledge_base_caller(event: Mapping[str, Any], knowledge_base_id: str, claim: str) -> Caller:
    """The caller acting in the knowledge base's context; ``ForbiddenError`` (or ``UnauthenticatedError``)
    when no authority granted it."""
    request_context = event.get("requestContext") or {}
    if request_context.get("authorizer"):
        headers = {
            k: v for k, v in (event.get("headers") or {}).items() if k.lower() != CONTEXT_HEADER.lower()
        }
        return caller_from_event({**event, "headers": {**headers, CONTEXT_HEADER: knowledge_base_id}}, claim)
    principal = (request_context.get("identity") or {}).get("userArn")
    if not isinstance(principal, str) or not principal:
        raise ForbiddenError("No authority granted this knowledge base.")
    try:
        return Caller(CallerContext(knowledge_base_id), principal=principal)
    except InvalidRequestError as malformed:
        raise ForbiddenError("No authority granted this knowledge base.") from malformed
