"""What the document plane and ingestion jobs need from the outside, beside the ingest pipeline's own
ports (``ingest.ports``, ``documents.status``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ..documents.status import DocumentStatus
from ..models.ingest import ObjectRef


class DocumentObjects(Protocol):
    """The ingest bucket, as the document plane writes it."""

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        """At most ``limit + 1`` bytes of the object; None when there is none."""
        ...

    def write_document(self, bucket: str, key: str, data: bytes, content_type: str) -> None: ...

    def delete(self, bucket: str, key: str) -> None: ...

    def keys(self, bucket: str, prefix: str, *, after: str | None = None) -> Iterator[str]:
        """The keys under ``prefix``, in key order."""
        ...


class Records(Protocol):
    """Small JSON records of one kind per context (client tokens, ingestion jobs), in key order."""

    def get(self, kind: str, context_id: str, key: str) -> dict[str, Any] | None: ...

    def put(self, kind: str, context_id: str, key: str, record: dict[str, Any], *, new: bool = False) -> bool:
        """Store ``record``; with ``new``, only where none is (False when one was)."""
        ...

    def page(
        self, kind: str, context_id: str, *, limit: int, after: str | None, descending: bool
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Records in key order (or its reverse) after key ``after``, and the last key when more remain."""
        ...


class DocumentEvents(Protocol):
    """What makes the ingest pipeline apply a file written or removed through the API: the bucket's
    notifications (deployed), or the pipeline run in place (locally)."""

    def apply(
        self, context_id: str, keys: Sequence[str], *, removed: bool, notified: bool
    ) -> list[DocumentStatus | None]:
        """Apply each key (``removed``: its removal), unless ``notified`` and notifications do it; the
        statuses after (None for each one left to a notification, or with nothing to do)."""
        ...
