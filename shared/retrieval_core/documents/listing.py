"""``GET /v1/documents?prefix=...`` and ``GET /v1/documents/{key}``: the caller's files' statuses. Only the
caller's context is ever read (the store's partition is the context), so another context's file and a
missing one are the same 404."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from ..errors import NotFoundError
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


class DocumentList(BaseModel):
    documents: list[DocumentStatus]
    next_token: str | None = None


class DocumentStatuses:
    def __init__(self, store: DocumentStatusStore) -> None:
        self._store = store

    def list(self, context_id: str, request: DocumentListRequest) -> DocumentList:
        # The token is the last key listed: it names only the caller's own file, and any string is a
        # valid place to resume (the keys after it), so no token can be refused or lead elsewhere.
        page = self._store.page(context_id, request.prefix, limit=request.limit, after=request.next_token)
        return DocumentList(documents=page.documents, next_token=page.next_token)

    def get(self, context_id: str, key: str) -> DocumentStatus:
        if not key or len(key) > MAX_KEY_CHARS:
            raise DocumentNotFoundError()
        status = self._store.get(context_id, key)
        if status is None:
            raise DocumentNotFoundError()
        return status
