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
    wanted = name.lower()
    found: str | None = None
    for key, value in (headers or {}).items():
        if str(key).lower() == wanted:
            found = value if isinstance(value, str) else None
    return found
