"""Issue 67, item 1 for JSON Lines: each object's record in the status store, ``pending`` before any line
is loaded and its fate after, over in-memory fakes (on the stack: test_lines_ledger_stack.py)."""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingQueue, ScriptedLoader
from retrieval_core.ingest.errors import IngestIncompleteError
from retrieval_core.ingest.lines_ledger import LinesLedger
from retrieval_core.ingest.service import IngestService
from retrieval_core.loading.lines import OversizedLine
from retrieval_core.loading.loader import LoadReport
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.limits import StorageLimits

KEY = "contexts/acme/batch.jsonl"
BODY = b"l1\nl2\nbad\nl4\nl5\n"
SMALL_PARTS = StorageLimits(part_min_bytes=0)


class SeenByLoader(ScriptedLoader):
    """Notes the object's record as each part starts loading (what a kill at that moment leaves)."""

    def __init__(self, statuses: MemoryDocumentStatuses) -> None:
        super().__init__()
        self._statuses = statuses
        self.seen: list[str | None] = []

    def load_lines(
        self, lines: Iterable[bytes | OversizedLine], *, context_id: str | None = None, first_line: int = 1
    ) -> LoadReport:
        record = self._statuses.get("acme", "batch.jsonl")
        self.seen.append(None if record is None else record.status)
        return super().load_lines(lines, context_id=context_id, first_line=first_line)


def _service(
    objects: MemoryObjects,
    statuses: MemoryDocumentStatuses,
    loader: ScriptedLoader,
    queue: RecordingQueue | None = None,
    limits: StorageLimits = SMALL_PARTS,
) -> IngestService:
    return IngestService(
        loader=loader,
        objects=objects,
        queue=queue,
        part_lines=2,
        limits=limits,
        ledger=LinesLedger(statuses, lambda context_id: "gen-1"),
    )


def test_pending_with_digest_before_any_line_then_indexed_or_failed_with_the_count() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    loader = SeenByLoader(statuses)
    objects.blobs[("b", KEY)] = b"l1\nl2\n"
    outcome = _service(objects, statuses, loader).object_created(ObjectRef("b", KEY, "v1"))
    assert loader.seen == ["pending"]
    record = statuses.get("acme", "batch.jsonl")
    assert record is not None and outcome.lines_record == record
    assert (record.status, record.chunks, record.version, record.generation) == ("indexed", 2, "v1", "gen-1")
    assert record.content_hash == hashlib.sha256(b"l1\nl2\n").hexdigest()


def test_rejected_lines_fail_the_object_with_a_reason_and_vouch_for_its_bytes() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    objects.blobs[("b", KEY)] = BODY
    _service(objects, statuses, ScriptedLoader()).object_created(ObjectRef("b", KEY, "v1"))
    record = statuses.get("acme", "batch.jsonl")
    assert record is not None and (record.status, record.chunks) == ("failed", 4)
    assert record.reason == "1 lines rejected (line 3: (line): not valid JSON)"
    assert record.content_hash == hashlib.sha256(BODY).hexdigest()


def test_a_queued_object_is_pending_until_its_last_part_and_keeps_its_digest() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    objects.blobs[("b", KEY)] = BODY
    queue = RecordingQueue()
    service = _service(objects, statuses, ScriptedLoader(), queue)
    service.object_created(ObjectRef("b", KEY, "v1"))
    for task in queue.tasks[:2]:
        service.part(task)
    pending = statuses.get("acme", "batch.jsonl")
    assert pending is not None and pending.status == "pending"
    last = service.part(queue.tasks[2]).lines_record
    assert last is not None and last.status == "failed" and last.content_hash == pending.content_hash


def test_unwritten_items_fail_the_object_without_vouching_for_its_bytes() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    loader = ScriptedLoader()
    loader.unwritten_lines = {1}
    objects.blobs[("b", KEY)] = b"l1\nl2\n"
    with pytest.raises(IngestIncompleteError):
        _service(objects, statuses, loader).object_created(ObjectRef("b", KEY, "v1"))
    record = statuses.get("acme", "batch.jsonl")
    assert record is not None and record.status == "failed" and record.content_hash is None
    assert record.reason is not None and "1 items not written" in record.reason


def test_a_decompression_bomb_fails_with_the_digest_of_its_stored_bytes() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    bomb = gzip.compress(b"x" * (3 << 20))
    objects.blobs[("b", KEY + ".gz")] = bomb
    limits = StorageLimits(part_min_bytes=0, decompression_ratio=10)
    service = _service(objects, statuses, ScriptedLoader(), limits=limits)
    service.object_created(ObjectRef("b", KEY + ".gz", "v1"))
    record = statuses.get("acme", "batch.jsonl.gz")
    assert record is not None and record.status == "failed"
    assert record.reason is not None and "decompresses to more than" in record.reason
    assert record.content_hash == hashlib.sha256(bomb).hexdigest()


def test_a_removed_object_is_recorded_deleted_and_its_items_stay() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    record = _service(objects, statuses, ScriptedLoader()).object_removed(ObjectRef("b", KEY))
    assert record.lines_record is not None and record.lines_record.status == "deleted"
    assert "items its lines loaded stay" in str(record.lines_record.reason)
