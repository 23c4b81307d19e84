"""``GET /v1/documents?prefix=...`` and ``GET /v1/documents/{key}``: the caller's files' statuses. Only the
caller's context is ever read (the store's partition is the context), so another context's file and a
missing one are the same 404."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from .. import base64url
from ..errors import BadRequestError, NotFoundError
from .status import INDEXED, UNVERSIONED, DocumentStatus, DocumentStatusStore, is_stale

MAX_KEY_CHARS = 1024
PAGE_SIZES = (1, 100)


class DocumentNotFoundError(NotFoundError):
    """No such file in the caller's context; another context's file gets exactly this error."""

    def __init__(self) -> None:
        super().__init__("Document not found.")


class DocumentListRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    prefix: str = Field(default="", max_length=MAX_KEY_CHARS, description="Keys starting with this.")
    limit: StrictInt = Field(default=100, description="Clamped to 1..100.")
    next_token: str | None = Field(
        default=None, max_length=4 * MAX_KEY_CHARS, description="The previous page's token, unopened."
    )

    @field_validator("limit")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(PAGE_SIZES[0], min(PAGE_SIZES[1], value))


def list_request(prefix: str, limit: str | None, next_token: str | None) -> DocumentListRequest:
    """The request of ``GET /v1/documents``'s query: a ``limit`` that is not a whole number of at least
    1 is a 400 naming the field (``-1`` was once read as 1). The token is opened with the caller's
    context (``DocumentStatuses.list``)."""
    size = 100 if limit is None else _page_size(limit)
    return DocumentListRequest(prefix=prefix, limit=size, next_token=next_token)


def _page_size(limit: str) -> int:
    text = limit.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < 1:
        raise BadRequestError(
            "limit", "must be a whole number of at least 1 (larger ones are clamped to 100)"
        )
    return int(text)


TOKEN_VERSION = "d2"
"""``d1`` tokens were unsigned base64 of ``[version, prefix, last key]``: forgeable, and naming a file in
clear text. They are refused now, like any unknown version."""
NONCE_BYTES = 16


class ListingTokens:
    """The listing's page tokens: ``d2.<nonce + sealed last key>.<mac>`` (each part base64url). The last
    key is sealed with a SHAKE-256 keystream of a key derived from the paging key and a random nonce, so
    a token names no file; the MAC is an HMAC-SHA256 over the sealed key, *the caller's context and the
    prefix*, which the token does not carry (as retrieve's ``PageTokens``). A token altered by one byte,
    used under another context or for another prefix, and a made-up one fail alike: one 400."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the paging key must be at least 16 bytes")
        self._seal_key = hmac.new(key, b"documents-listing-seal", hashlib.sha256).digest()
        self._mac_key = hmac.new(key, b"documents-listing-mac", hashlib.sha256).digest()

    def issue(self, context_id: str, prefix: str, last_key: str) -> str:
        nonce = secrets.token_bytes(NONCE_BYTES)
        plain = last_key.encode()
        sealed = nonce + bytes(a ^ b for a, b in zip(plain, self._stream(nonce, len(plain)), strict=True))
        body = base64url.encode(sealed)
        return f"{TOKEN_VERSION}.{body}.{base64url.encode(self._mac(context_id, prefix, body))}"

    def open(self, token: str, context_id: str, prefix: str) -> str:
        """The key to list after; ``BadRequestError`` for a token not issued for this context and prefix."""
        version, _, rest = token.partition(".")
        body, _, mac = rest.partition(".")
        expected = base64url.encode(self._mac(context_id, prefix, body))
        # Compared as text: two base64 spellings of one MAC (unused trailing bits) are two tokens.
        if version != TOKEN_VERSION or not hmac.compare_digest(mac.encode(), expected.encode()):
            raise _refused()
        try:
            sealed = base64url.decode(body)
            nonce, cipher = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
            last_key = bytes(a ^ b for a, b in zip(cipher, self._stream(nonce, len(cipher)), strict=True))
            return last_key.decode()
        except (ValueError, UnicodeDecodeError):  # only a token this class signed gets here
            raise _refused() from None

    def _stream(self, nonce: bytes, size: int) -> bytes:
        return hashlib.shake_256(self._seal_key + nonce).digest(size)

    def _mac(self, context_id: str, prefix: str, body: str) -> bytes:
        # Lengths first: no (context, prefix, body) triple spells another's message.
        message = f"{TOKEN_VERSION}|{len(context_id)}:{context_id}|{len(prefix)}:{prefix}|{body}".encode()
        return hmac.new(self._mac_key, message, hashlib.sha256).digest()


def _refused() -> BadRequestError:
    return BadRequestError("next_token", "is not a token this API issued for this listing; start without it")


class DocumentList(BaseModel):
    documents: list[DocumentStatus]
    next_token: str | None = None


class DocumentStatuses:
    def __init__(
        self,
        store: DocumentStatusStore,
        tokens: ListingTokens,
        generation: Callable[[str], str | None] = lambda context_id: UNVERSIONED,
    ) -> None:
        self._store = store
        self._tokens = tokens
        self._generation = generation
        """The generation of a context's index now: a record naming another is listed ``stale``."""

    def list(self, context_id: str, request: DocumentListRequest) -> DocumentList:
        # The token's key names only a place in the caller's own partition (the keys after it), so no
        # token could lead elsewhere; it is signed for the context and prefix so that another listing's
        # token, or a made-up one, is refused rather than read, and sealed so that it names no file.
        after = None
        if request.next_token is not None:
            after = self._tokens.open(request.next_token, context_id, request.prefix)
        page = self._store.page(context_id, request.prefix, limit=request.limit, after=after)
        token = None
        if page.next_token is not None:
            token = self._tokens.issue(context_id, request.prefix, page.next_token)
        return DocumentList(
            documents=as_they_are(page.documents, lambda: self._generation(context_id)), next_token=token
        )

    def get(self, context_id: str, key: str) -> DocumentStatus:
        if not key or len(key) > MAX_KEY_CHARS:
            raise DocumentNotFoundError()
        status = self._store.get(context_id, key)
        if status is None:
            raise DocumentNotFoundError()
        return as_they_are([status], lambda: self._generation(context_id))[0]


def as_they_are(statuses: list[DocumentStatus], generation: Callable[[], str | None]) -> list[DocumentStatus]:
    """The records as the index now bears them out: one whose chunks are in an index that is no longer
    the context's is ``stale`` (one index read, only when some record claims chunks)."""
    if not any(status.status in INDEXED for status in statuses):
        return statuses
    now = generation()
    return [
        status.model_copy(update={"status": "stale"}) if is_stale(status, now) else status
        for status in statuses
    ]
