"""``GET /v1/documents?prefix=...`` and ``GET /v1/documents/{key}``: the caller's files' statuses. Only the
caller's context is ever read (the store's partition is the context), so another context's file and a
missing one are the same 404."""

from __future__ import annotations

import binascii
import json

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from .. import base64url
from ..errors import BadRequestError, NotFoundError
from .status import DocumentStatus, DocumentStatusStore

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
        default=None, max_length=MAX_KEY_CHARS, description="The last key of the previous page."
    )

    @field_validator("limit")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(PAGE_SIZES[0], min(PAGE_SIZES[1], value))


def list_request(prefix: str, limit: str | None, next_token: str | None) -> DocumentListRequest:
    """The request of ``GET /v1/documents``'s query: a ``limit`` that is not a whole number of at least
    1, or a ``next_token`` this API did not issue for this ``prefix``, is a 400 naming the field (a
    garbage token used to list nothing, and ``-1`` was read as 1)."""
    size = 100 if limit is None else _page_size(limit)
    after = None if next_token is None else open_token(next_token, prefix)
    return DocumentListRequest(prefix=prefix, limit=size, next_token=after)


def _page_size(limit: str) -> int:
    text = limit.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < 1:
        raise BadRequestError(
            "limit", "must be a whole number of at least 1 (larger ones are clamped to 100)"
        )
    return int(text)


TOKEN_VERSION = "d1"


def issue_token(prefix: str, last_key: str) -> str:
    """The page token: the last key listed with the prefix it was listed under (opaque, unpadded
    base64url), so a token of another listing, or a made-up one, is refused rather than read."""
    payload = json.dumps([TOKEN_VERSION, prefix, last_key], separators=(",", ":")).encode()
    return base64url.encode(payload)


def open_token(token: str, prefix: str) -> str:
    """The key to list after; ``BadRequestError`` for a token not issued for this prefix."""
    try:
        version, issued_for, last_key = json.loads(base64url.decode(token))
        valid = version == TOKEN_VERSION and issued_for == prefix and isinstance(last_key, str)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        valid = False
    if not valid or not last_key.startswith(prefix) or len(last_key) > MAX_KEY_CHARS:
        raise BadRequestError(
            "next_token", "is not a token this API issued for this prefix; start without it"
        )
    return str(last_key)


class DocumentList(BaseModel):
    documents: list[DocumentStatus]
    next_token: str | None = None


class DocumentStatuses:
    def __init__(self, store: DocumentStatusStore) -> None:
        self._store = store

    def list(self, context_id: str, request: DocumentListRequest) -> DocumentList:
        # The token's key names only a place in the caller's own partition (the keys after it), so no
        # token can lead elsewhere; it is opaque so that a malformed one is refused, not read as a key.
        page = self._store.page(context_id, request.prefix, limit=request.limit, after=request.next_token)
        token = None if page.next_token is None else issue_token(request.prefix, page.next_token)
        return DocumentList(documents=page.documents, next_token=token)

    def get(self, context_id: str, key: str) -> DocumentStatus:
        if not key or len(key) > MAX_KEY_CHARS:
            raise DocumentNotFoundError()
        status = self._store.get(context_id, key)
        if status is None:
            raise DocumentNotFoundError()
        return status
