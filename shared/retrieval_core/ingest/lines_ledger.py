"""The ledger of JSON Lines objects: one record per object, in the documents' status store, so the
listing (``GET /v1/documents``) and the next sync know what became of it.

Write order: ``pending`` (the stored bytes' SHA-256 and the upload's revision) once the object is
planned and before any line is loaded; then, when its report is written, ``indexed`` (with ``chunks`` =
the items its lines wrote) or ``failed`` with a one-line reason, naming the index generation its lines
are in. A kill in between leaves ``pending``, which no sync takes for done, so the object is loaded
again (its finished parts reused).

A record vouches for its bytes (``content_hash``) only when the same bytes would fare the same again: an
object refused by a limit, or with rejected lines. A failure of the backends (items unwritten, a part
never run) keeps no digest, so the next sync sends the object again instead of repeating the failure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, BinaryIO

from ..documents.status import DocumentStatus, DocumentStatusStore, FileStatus
from ..models.vocabulary import iso
from .objects import CONTEXTS_PREFIX

if TYPE_CHECKING:
    from ..loading.loader import LoadReport
    from ..models.ingest import ObjectRef
    from .report import IngestReport

REMOVED = "the object was removed; the items its lines loaded stay (a delete line removes an item)"


class LinesLedger:
    def __init__(
        self,
        statuses: DocumentStatusStore,
        generation: Callable[[str], str | None],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._statuses = statuses
        self._generation = generation
        self._clock = clock

    def begun(self, ref: ObjectRef, context_id: str, digest: str | None) -> None:
        """``pending``: written before any of the object's lines is."""
        self._put(ref, context_id, "pending", 0, None, digest)

    def finished(
        self, ref: ObjectRef, context_id: str, report: IngestReport, digest: str | None
    ) -> DocumentStatus:
        """The object's fate from its report (``digest``: its bytes', None when unknown)."""
        status, reason, vouched = fate(report)
        return self._put(ref, context_id, status, report.loaded, reason, digest if vouched else None)

    def parts_finished(self, ref: ObjectRef, context_id: str, report: IngestReport) -> DocumentStatus | None:
        """The fate of an object loaded part by part (the last part merged its report), with the digest
        its ``pending`` record holds; None (nothing written) when that record is of a newer upload."""
        previous = self._statuses.get(context_id, relative_key(ref.key, context_id))
        if previous is not None and previous.version != ref.revision:
            return None
        return self.finished(ref, context_id, report, previous.content_hash if previous else None)

    def loaded(self, ref: ObjectRef, context_id: str, load: LoadReport, digest: str) -> DocumentStatus:
        """The fate of a file ``retrieval load`` read whole into ``context_id``."""
        status, reason, vouched = load_fate(load)
        return self._put(ref, context_id, status, load.loaded, reason, digest if vouched else None)

    def removed(self, ref: ObjectRef, context_id: str) -> DocumentStatus:
        return self._put(ref, context_id, "deleted", 0, REMOVED, None)

    def _put(
        self,
        ref: ObjectRef,
        context_id: str,
        status: FileStatus,
        written: int,
        reason: str | None,
        digest: str | None,
    ) -> DocumentStatus:
        record = DocumentStatus(
            key=relative_key(ref.key, context_id),
            status=status,
            version=ref.revision,
            chunks=written,
            reason=reason,
            updated_at=iso(self._clock()),
            content_hash=digest,
            sequencer=ref.sequencer,
            # The index its lines are in, read once they are (the first load creates it); a pending or
            # deleted record vouches for no index, and reading none saves the request.
            generation=self._generation(context_id) if status in {"indexed", "failed"} else None,
        )
        self._statuses.put(context_id, record)
        return record


def fate(report: IngestReport) -> tuple[FileStatus, str | None, bool]:
    """The status an object's report gives it, the reason, and whether the same bytes would fare the
    same again (so the record may vouch for them)."""
    first = report.rejected_lines[0] if report.rejected_lines else None
    return _fate(
        refused=report.reason if report.status == "rejected" else None,
        unwritten=report.unwritten if report.status == "incomplete" else 0,
        missing=report.missing_parts,
        rejected=report.rejected,
        example=f"line {first.line}: {first.field}: {first.reason}" if first is not None else None,
    )


def load_fate(load: LoadReport) -> tuple[FileStatus, str | None, bool]:
    """``fate`` of a file loaded whole in one process (``retrieval load``)."""
    unwritten = len(load.unwritten) or int(load.stopped is not None)
    example = str(load.errors[0]) if load.errors else None
    return _fate(refused=None, unwritten=unwritten, missing=[], rejected=load.rejected, example=example)


def _fate(
    *, refused: str | None, unwritten: int, missing: list[int], rejected: int, example: str | None
) -> tuple[FileStatus, str | None, bool]:
    if refused is not None:
        return "failed", refused, True
    if unwritten or missing:
        ran = f", parts {missing} never ran" if missing else ""
        return "failed", f"{unwritten} items not written{ran}; loading it again finishes it", False
    if rejected:
        return "failed", f"{rejected} lines rejected" + (f" ({example})" if example else ""), True
    return "indexed", None, True


def relative_key(key: str, context_id: str) -> str:
    return key[len(f"{CONTEXTS_PREFIX}{context_id}/") :]


class DigestingReader:
    """A stream that hashes what is read through it (the stored bytes, as a sync hashes its file)."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._hash = hashlib.sha256()
        self._count = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self._raw.read(size)
        self._hash.update(data)
        self._count += len(data)
        return data

    def digest(self, limit: int) -> str | None:
        """The SHA-256 of the whole stream, reading what is left of it up to ``limit`` bytes in all;
        None past that (an object refused for its size is not read through)."""
        while self._count <= limit and self.read(1 << 20):
            pass
        return self._hash.hexdigest() if self._count <= limit else None
