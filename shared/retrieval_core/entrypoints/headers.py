"""The request headers the API reads besides the authorizer's claims (names as documented; HTTP
header names compare case-insensitively)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CONTEXT_HEADER = "X-Context-Id"
"""Which of the caller's allowed contexts to act in, when the claims list several."""

SESSION_HEADER = "X-Retrieval-Session"
"""The retrieval session id, when the body carries no ``session_id``."""

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
