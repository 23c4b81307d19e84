"""Paging tokens: opaque, signed, bound to the caller's context, the request and an expiry.

A token is ``p2.<fields>.<shown>.<mac>`` (each part base64url). ``fields`` holds the offset of the next
page, the expiry, the request's fingerprint, from the second page on the random cursor id of the frozen
ranking, and for an ``auto`` question sent without ``now`` the moment its first page read it at. A
first page freezes nothing: its token instead carries, in ``shown``, a short fingerprint of every id
that page showed, so the second page can rank again and leave them out (``shown`` is empty in a
cursor's token; a frozen ranking keeps them, joined alike). The MAC is an HMAC-SHA256 over both parts
*and the caller's context*, which the token does not carry. So a token used under another context fails
verification exactly as an altered byte does: one error, one message, nothing learnt.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import base64url
from .config import DEFAULT_PAGING_MAX_DEPTH, DEFAULT_PAGING_TTL_SECONDS
from .errors import NextTokenExpiredError, NextTokenInvalidError, NextTokenMismatchError

TOKEN_VERSION = "p2"
"""``p1`` tokens named a cursor the first page wrote; they are invalid now, like any unknown version."""
DEFAULT_WINDOW = 100
ID_FINGERPRINT_BYTES = 8
"""64 bits of sha256 per id. An id is wrongly left out of a second page only if its fingerprint equals
one of the at most 100 the first page showed: among at most 1,000 ranked ids that is about 1e5 / 2^64
(~5e-15) per request, negligible. Eight bytes keep a 100-hit first page's token near 1.2 KB."""


def id_fingerprints(item_ids: Iterable[str]) -> frozenset[bytes]:
    return frozenset(id_fingerprint(i) for i in item_ids)


def id_fingerprint(item_id: str) -> bytes:
    return hashlib.sha256(item_id.encode()).digest()[:ID_FINGERPRINT_BYTES]


def fingerprint_bytes(fingerprints: frozenset[bytes]) -> bytes:
    """Fingerprints as one byte string (sorted, so equal sets pack alike)."""
    return b"".join(sorted(fingerprints))


def fingerprints_from(raw: bytes) -> frozenset[bytes]:
    return frozenset(raw[i : i + ID_FINGERPRINT_BYTES] for i in range(0, len(raw), ID_FINGERPRINT_BYTES))


@dataclass(frozen=True, slots=True)
class PagingConfig:
    max_depth: int = DEFAULT_PAGING_MAX_DEPTH
    """The deepest position any page may reach (reported in every response)."""
    window: int = DEFAULT_WINDOW
    """The least depth a deeper ranking (second page, extension) ranks to (an extension at least
    doubles what is frozen); hybrid excepted, see ``Pager``."""
    ttl_seconds: int = DEFAULT_PAGING_TTL_SECONDS


@dataclass(frozen=True, slots=True)
class PagePosition:
    """Where the next page starts (an absolute position in the ranking). With a ``cursor_id`` the
    ranking is frozen under it; without one it is the second page, and ``shown`` holds the fingerprints
    of the ids the first page showed."""

    offset: int
    cursor_id: str | None = None
    shown: frozenset[bytes] = field(default_factory=frozenset)
    asked_at: int | None = None
    """Epoch seconds an ``auto`` question without ``now`` was read at on its first page: every later page
    reads its relative time cues ("last month") at that moment too, so the pages rank one question."""
    floor: float | None = None
    """The least ``relevance`` the pages before showed: no hit of a later page is answered above it, so
    relevance never rises from one page to the next (``pager.calibrated``)."""


def new_cursor_id() -> str:
    return secrets.token_urlsafe(12)


class PageTokens:
    """Issues and opens tokens with one HMAC key (from configuration, read once per container)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the paging key must be at least 16 bytes")
        self._key = key

    def issue(self, context_id: str, position: PagePosition, fingerprint: str, expires_at: int) -> str:
        fields: dict[str, Any] = {"o": position.offset, "e": expires_at, "q": fingerprint}
        if position.cursor_id is not None:
            fields["c"] = position.cursor_id
        if position.asked_at is not None:
            fields["n"] = position.asked_at
        if position.floor is not None:
            fields["r"] = position.floor
        signed = ".".join(
            (
                base64url.encode(json.dumps(fields, separators=(",", ":")).encode()),
                base64url.encode(fingerprint_bytes(position.shown)),
            )
        )
        return f"{TOKEN_VERSION}.{signed}.{base64url.encode(self._mac(context_id, signed))}"

    def open(self, token: str, context_id: str, fingerprint: str, now: int) -> PagePosition:
        """The position a token names, after checking (in this order) its MAC under the caller's
        context, its expiry and its request."""
        version, _, rest = token.partition(".")
        signed, _, mac = rest.rpartition(".")
        # Compared as text: two base64 spellings of one MAC (unused trailing bits) are two tokens.
        expected = base64url.encode(self._mac(context_id, signed))
        if version != TOKEN_VERSION or not hmac.compare_digest(mac.encode(), expected.encode()):
            raise NextTokenInvalidError()
        encoded_fields, _, encoded_shown = signed.partition(".")
        fields = json.loads(base64url.decode(encoded_fields))
        if int(fields["e"]) <= now:
            raise NextTokenExpiredError()
        if not hmac.compare_digest(str(fields["q"]), fingerprint):
            raise NextTokenMismatchError()
        return PagePosition(
            offset=int(fields["o"]),
            cursor_id=None if "c" not in fields else str(fields["c"]),
            shown=fingerprints_from(base64url.decode(encoded_shown) if encoded_shown else b""),
            asked_at=None if "n" not in fields else int(fields["n"]),
            floor=None if "r" not in fields else float(fields["r"]),
        )

    def _mac(self, context_id: str, signed: str) -> bytes:
        message = f"{TOKEN_VERSION}|{context_id}|{signed}".encode()
        return hmac.new(self._key, message, hashlib.sha256).digest()
