"""The caller's context, from authorizer claims only (never from a request body or query string).

Supported authorizer shapes:
- REST API Lambda authorizer: ``requestContext.authorizer.<claim>``
- REST API Cognito user pool: ``requestContext.authorizer.claims.<claim>`` (default ``custom:context_id``)
- HTTP API JWT authorizer: ``requestContext.authorizer.jwt.claims.<claim>``
- HTTP API Lambda authorizer: ``requestContext.authorizer.lambda.<claim>``

A claim may list several contexts (comma-separated or a JSON list); the caller then picks one with the
``X-Context-Id`` header. No claim is a 401; a context outside the list is a 403.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..context import CallerContext
from ..errors import ForbiddenError, InvalidRequestError, UnauthenticatedError
from .wire import CONTEXT_HEADER

SESSION_LIMIT_CLAIM = "session_limit"


@dataclass(frozen=True, slots=True)
class Caller:
    context: CallerContext
    claim_session_limit: int | None = None
    principal: str | None = None
    """Who the authorizer says is calling (``principalId``, else the ``sub`` claim); sessions bind to it."""


def caller_from_event(event: Mapping[str, Any], claim: str = "context_id") -> Caller:
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    claims = _claim_sources(authorizer)
    allowed = _allowed_contexts(claims, claim)
    if not allowed:
        raise UnauthenticatedError("No context claim was presented by the authorizer.")
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    chosen = headers.get(CONTEXT_HEADER.lower())
    if chosen is None:
        if len(allowed) > 1:
            raise ForbiddenError("Several contexts are allowed: choose one with the X-Context-Id header.")
        chosen = allowed[0]
    if chosen not in allowed:
        raise ForbiddenError("The requested context is not allowed for this caller.")
    try:
        context = CallerContext(chosen)
    except InvalidRequestError as malformed:
        raise ForbiddenError("The requested context is not allowed for this caller.") from malformed
    return Caller(context, _session_limit(claims), _principal(authorizer, claims))


def _claim_sources(authorizer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Claim dictionaries in precedence order, whichever authorizer produced them."""
    sources: list[Mapping[str, Any]] = []
    for nested in (
        (authorizer.get("jwt") or {}).get("claims"),
        authorizer.get("lambda"),
        authorizer.get("claims"),
    ):
        if isinstance(nested, Mapping):
            sources.append(nested)
    sources.append(authorizer)
    return sources


def _allowed_contexts(sources: list[Mapping[str, Any]], claim: str) -> list[str]:
    names = (claim, f"custom:{claim}")
    for source in sources:
        for name in names:
            value = source.get(name)
            if value not in (None, "", []):
                return _as_list(value)
    return []


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value).strip()
    if text.startswith("["):
        try:
            return _as_list(json.loads(text))
        except json.JSONDecodeError:
            return []
    return [part.strip() for part in text.split(",") if part.strip()]


def _session_limit(sources: list[Mapping[str, Any]]) -> int | None:
    for source in sources:
        for name in (SESSION_LIMIT_CLAIM, f"custom:{SESSION_LIMIT_CLAIM}"):
            value = source.get(name)
            if value is not None and str(value).isdigit() and int(value) > 0:
                return int(value)
    return None


def _principal(authorizer: Mapping[str, Any], sources: list[Mapping[str, Any]]) -> str | None:
    """A Lambda authorizer's ``principalId``, else the token's ``sub`` (Cognito, JWT), else None."""
    for value in (authorizer.get("principalId"), *(source.get("sub") for source in sources)):
        if isinstance(value, str) and value.strip():
            return value
    return None
