"""Paging tokens: opaque, signed, bound to the caller's context, the request and an expiry.

A token is ``p1.<payload>.<mac>`` (base64url). The payload names a frozen ranking (random cursor id),
the offset of the next page, the expiry and the request's fingerprint; the MAC is an HMAC-SHA256 over
the payload *and the caller's context*, which the token does not carry. So a token used under another
context fails verification exactly as an altered byte does: one error, one message, nothing learnt.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..policy.query import canonical_key, prepare_query
from .config import DEFAULT_PAGING_MAX_DEPTH, DEFAULT_PAGING_TTL_SECONDS
from .errors import NextTokenExpiredError, NextTokenInvalidError, NextTokenMismatchError

TOKEN_VERSION = "p1"
DEFAULT_WINDOW = 100
NOT_PART_OF_RANKING = frozenset({"top_k", "next_token", "session_id", "session_limit", "pack", "context_id"})
"""Fields a continuation may change: page size and presentation, never what is ranked."""


@dataclass(frozen=True, slots=True)
class PagingConfig:
    max_depth: int = DEFAULT_PAGING_MAX_DEPTH
    """The deepest position any page may reach (reported in every response)."""
    window: int = DEFAULT_WINDOW
    """The least depth an extension of a frozen ranking ranks to (it at least doubles it)."""
    ttl_seconds: int = DEFAULT_PAGING_TTL_SECONDS


@dataclass(frozen=True, slots=True)
class PagePosition:
    cursor_id: str
    offset: int


def fingerprint(request: Mapping[str, Any]) -> str:
    """The request's ranking-relevant fields, normalised as the session policy normalises queries."""
    return canonical_key(prepare_query({k: v for k, v in request.items() if k not in NOT_PART_OF_RANKING}))


def new_cursor_id() -> str:
    return secrets.token_urlsafe(12)


class PageTokens:
    """Issues and opens tokens with one HMAC key (from configuration, read once per container)."""

    def __init__(self, key: bytes, ttl_seconds: int = DEFAULT_PAGING_TTL_SECONDS) -> None:
        if len(key) < 16:
            raise ValueError("the paging key must be at least 16 bytes")
        self._key = key

    def issue(
        self, context_id: str, position: PagePosition, request_fingerprint: str, expires_at: int
    ) -> str:
        payload = _b64(
            json.dumps(
                {"c": position.cursor_id, "o": position.offset, "e": expires_at, "q": request_fingerprint},
                separators=(",", ":"),
            ).encode()
        )
        return f"{TOKEN_VERSION}.{payload}.{_b64(self._mac(context_id, payload))}"

    def open(self, token: str, context_id: str, request_fingerprint: str, now: int) -> PagePosition:
        """The position a token names, after checking (in this order) its MAC under the caller's
        context, its expiry and its request."""
        version, _, rest = token.partition(".")
        payload, _, mac = rest.partition(".")
        # Compared as text: two base64 spellings of one MAC (unused trailing bits) are two tokens.
        expected = _b64(self._mac(context_id, payload))
        if version != TOKEN_VERSION or not hmac.compare_digest(mac.encode(), expected.encode()):
            raise NextTokenInvalidError()
        fields = json.loads(_unb64(payload))
        if int(fields["e"]) <= now:
            raise NextTokenExpiredError()
        if not hmac.compare_digest(str(fields["q"]), request_fingerprint):
            raise NextTokenMismatchError()
        return PagePosition(cursor_id=str(fields["c"]), offset=int(fields["o"]))

    def _mac(self, context_id: str, payload: str) -> bytes:
        message = f"{TOKEN_VERSION}|{context_id}|{payload}".encode()
        return hmac.new(self._key, message, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text or not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
