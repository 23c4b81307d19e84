"""``GET /v1/documents?prefix=...`` and ``GET /v1/documents/{key}``: the caller's files' statuses. Only the
caller's context is ever read (the store's partition is the context), so another context's file and a
missing one are the same 404."""

from __future__ import annotations

import binascii

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from .. import base64url
from ..errors import InvalidRequestError, NotFoundError
from ..models.limits import MAX_REQUEST_INT
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
    limit: StrictInt = Field(default=100, ge=1, le=MAX_REQUEST_INT, description="Clamped to 1..100.")
    next_token: str | None = Field(default=None, max_length=2 * MAX_KEY_CHARS)

    @field_validator("limit")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(PAGE_SIZES[0], min(PAGE_SIZES[1], value))


class DocumentList(BaseModel):
    documents: list[DocumentStatus]
    next_token: str | None = None


class DocumentStatuses:
    def __init__(self, store: DocumentStatusStore) -> None:
        self._store = store

    def list(self, context_id: str, request: DocumentListRequest) -> DocumentList:
        after = None if request.next_token is None else _opened(request.next_token)
        page = self._store.page(context_id, request.prefix, limit=request.limit, after=after)
        token = None if page.next_token is None else base64url.encode(page.next_token.encode("utf-8"))
        return DocumentList(documents=page.documents, next_token=token)

    def get(self, context_id: str, key: str) -> DocumentStatus:
        if not key or len(key) > MAX_KEY_CHARS:
            raise DocumentNotFoundError()
        status = self._store.get(context_id, key)
        if status is None:
            raise DocumentNotFoundError()
        return status


def _opened(token: str) -> str:
    try:
        return base64url.decode(token).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidRequestError("next_token is not a token this listing returned") from None
