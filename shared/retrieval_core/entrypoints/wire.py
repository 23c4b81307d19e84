"""What travels between a caller and a function, read and written one way: the request headers the API
reads besides the authorizer's claims (names as documented; HTTP header names compare
case-insensitively), request bodies as the API accepts them (JSON only, parsed with bounds so that no
body, however hostile, gets past the edge as anything but a 415 or a 422), and a route's answer as JSON,
the same for API Gateway and direct invocations (an answer may leave parts out of what it writes: a
retrieve answer drops the hit parts its request did not ``include``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from .errors import JSON_MEDIA_TYPE, UnsupportedMediaTypeError

CONTEXT_HEADER = "X-Context-Id"
"""Which of the caller's allowed contexts to act in, when the claims list several."""

SESSION_HEADER = "X-Retrieval-Session"
"""The retrieval session id, when the body carries no ``session_id``."""

CONTENT_TYPE_HEADER = "Content-Type"
"""A body's media type: a request that takes a body must declare JSON (``require_json``)."""

IDEMPOTENCY_HEADER = "Idempotency-Key"
"""A retrieve's idempotency key, when the body carries no ``idempotency_key``."""


def header_value(headers: Mapping[str, Any] | None, name: str) -> str | None:
    """A request header's value, its name compared case-insensitively; of two spellings of one name the
    later wins, as the functions read it (``claims.caller_from_event``)."""
    (value,) = header_values(headers, name)
    return value


def header_values(headers: Mapping[str, Any] | None, *names: str) -> tuple[str | None, ...]:
    """The values of the headers ``names``, in order, read as ``header_value`` reads one (None when a
    header is absent or is not text), in one pass over the headers."""
    wanted = {name.lower(): position for position, name in enumerate(names)}
    found: list[str | None] = [None] * len(names)
    for key, value in (headers or {}).items():
        position = wanted.get(str(key).lower())
        if position is not None:
            found[position] = value if isinstance(value, str) else None
    return tuple(found)


MAX_JSON_DEPTH = 32
"""Deeper than any valid request (the deepest is ``pack`` or ``window`` inside the body: 2 levels)."""
MAX_INTEGER_DIGITS = 100
METHODS_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def require_json(method: str, headers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Raise ``UnsupportedMediaTypeError`` when a request that takes a body does not declare it as JSON
    (no content type at all included, even with an empty body: nothing is read, nothing counted). The
    content type is read as every header is (``header_value``: of two spellings the later wins).

    Media types compare case-insensitively (RFC 9110): for one spelled otherwise (``APPLICATION/JSON``)
    the headers come back with it in lower case under one name, the one spelling the Powertools resolver
    parses; otherwise None (nothing to change)."""
    if method.upper() not in METHODS_WITH_BODY:
        return None
    content_type = header_value(headers, CONTENT_TYPE_HEADER) or ""
    media_type, separator, parameters = content_type.partition(";")
    if media_type.strip().lower() != JSON_MEDIA_TYPE:
        raise UnsupportedMediaTypeError(content_type)
    if media_type.strip() == JSON_MEDIA_TYPE:
        return None
    others = {k: v for k, v in (headers or {}).items() if str(k).lower() != CONTENT_TYPE_HEADER.lower()}
    return {**others, CONTENT_TYPE_HEADER: JSON_MEDIA_TYPE + separator + parameters}


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` that fails only with ``json.JSONDecodeError``: too deep a nesting or too long an
    integer is a malformed body (422), not a RecursionError or a ValueError (500)."""
    source = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if source.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", source, 0)
    try:
        value = _DECODER.decode(source)
    except RecursionError:
        raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", source, 0) from None
    if _depth_exceeds(value, MAX_JSON_DEPTH):
        raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", source, 0)
    return value


def _bounded_int(digits: str) -> int | float:
    """An integer too long to be a sane value becomes infinity, as ``1e999`` does: the models then reject
    it in the field that holds it (``top_k: Input should be a valid integer``), and Python never has to
    convert thousands of digits (which it refuses past 4,300)."""
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        return float("-inf") if digits.startswith("-") else float("inf")
    return int(digits)


_CONTAINERS = frozenset({dict, list})
_DECODER = json.JSONDecoder(parse_int=_bounded_int)
"""Made once: ``json.loads`` with a ``parse_int`` builds a decoder per call."""


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Iterative, so that checking a deep value cannot itself exhaust the stack."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        children = node.values() if type(node) is dict else node if type(node) is list else None
        if children is None:
            continue
        if depth > limit:
            return True
        # Only containers can be too deep: a vector's components need no place on the stack. (Parsed
        # JSON: its containers are exactly dict and list, which a type lookup tells fastest.)
        pending.extend((child, depth + 1) for child in children if type(child) in _CONTAINERS)
    return False


def _exclude(answer: BaseModel) -> dict[str, Any] | None:
    leave_out = getattr(answer, "serialisation_exclude", None)
    return leave_out() if callable(leave_out) else None


def answer_json(answer: BaseModel) -> str:
    """JSON text written by pydantic-core in one pass."""
    return answer.model_dump_json(by_alias=True, exclude=_exclude(answer))


def answer_body(answer: BaseModel) -> Any:
    """JSON-ready Python values (a direct invocation's ``body``)."""
    return answer.model_dump(mode="json", by_alias=True, exclude=_exclude(answer))
