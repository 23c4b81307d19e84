"""Each file's status, kept per context (DynamoDB in a stack): what the last event did to it, so a user
sees what failed and why without reading logs (``GET /v1/documents``). The record also holds what the
next event needs: the content hashes (same bytes -> unchanged), the chunk count (which ids an overwrite
or a removal must delete) and S3's ``sequencer`` (an older event arriving late changes nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

FileStatus = Literal["pending", "indexed", "updated", "unchanged", "deleted", "failed", "skipped", "stale"]
"""A document file's status (not ``models.vocabulary.Status``, an item's). ``pending``: written before
a file's chunks are, so a crash or a kill mid-file leaves it, and the next event or sync retries the
file; ``skipped``: a file of a type (or size) that is not indexed, with its reason; the others are
written after the work. ``stale`` is never written: it is how a record that says the file's chunks are
in the index is *listed* when the context's index is not the generation it names (``is_stale``)."""
INDEXED = frozenset({"indexed", "updated", "unchanged"})
"""Statuses that say the recorded bytes are in the index (``pending`` and ``failed`` never do)."""


UNVERSIONED = "unversioned"
"""The generation of an index that has none to tell (an in-memory store's): records written under it
stay true as long as it is the one read."""


def is_stale(status: DocumentStatus, generation: str | None) -> bool:
    """Whether ``status`` says its chunks are in an index that is not the context's index now
    (``generation``: ``index.uuid`` of the index behind its alias, None when there is none). An index
    restored, rebuilt, lost or started afresh (a new local node) is another generation: its record
    no longer tells the truth, so the next sync re-indexes the file and the listing says ``stale``.
    A record written before generations were recorded names none: stale too (it cannot be vouched for)."""
    return status.status in INDEXED and (generation is None or status.generation != generation)


class DocumentStatus(BaseModel):
    """The public record (the API's shape) and, beside it, the bookkeeping the ingest function reads."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(description="The file's key relative to contexts/<context_id>/.")
    status: FileStatus
    version: str | None = Field(default=None, description="The S3 version (or ETag) last applied.")
    chunks: int = Field(default=0, ge=0, description="The file's chunks now in the indexes.")
    reason: str | None = Field(
        default=None,
        description="Why the file failed or was skipped (its type, its size); for an update of its sidecar "
        "alone, that only its metadata changed; for typed sidecar values whose key cannot be typed for the "
        "context (the pool model, or a key it already indexes otherwise), the declaration and rebuild that "
        "make them filterable as typed; null otherwise.",
    )
    updated_at: str = Field(description="When this status was written (ISO-8601, UTC).")
    content_hash: str | None = Field(default=None, exclude=True)
    sidecar_hash: str | None = Field(default=None, exclude=True)
    chunking: str | None = Field(default=None, exclude=True)
    sequencer: str | None = Field(default=None, exclude=True)
    generation: str | None = Field(default=None, exclude=True)
    """The index generation (``index.uuid``) the file's chunks were written to."""

    def public(self) -> dict[str, object]:
        return self.model_dump(mode="json")


class StatusPage(BaseModel):
    documents: list[DocumentStatus]
    next_token: str | None = None


class DocumentStatusStore(Protocol):
    def get(self, context_id: str, key: str) -> DocumentStatus | None:
        """The status of ``key`` in ``context_id``; None when that context has no such file."""
        ...

    def put(self, context_id: str, status: DocumentStatus) -> None: ...

    def put_many(self, context_id: str, statuses: Sequence[DocumentStatus]) -> None:
        """Write several files' statuses at once (batched: a sync's files share the round trips)."""
        ...

    def page(self, context_id: str, prefix: str, *, limit: int, after: str | None) -> StatusPage:
        """Statuses of ``context_id`` whose key starts with ``prefix``, in key order, after key ``after``."""
        ...


def later(sequencer: str | None, than: str | None) -> bool:
    """Whether an event with ``sequencer`` happened after one with ``than`` (S3 sequencers are hex
    numbers of one key; a missing one never counts as older)."""
    if sequencer is None or than is None:
        return True
    try:
        return int(sequencer, 16) >= int(than, 16)
    except ValueError:
        return True
