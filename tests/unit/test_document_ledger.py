"""The documents' ledger (issue 67 items 1 and 6): a file's fingerprint (bytes, sidecar, chunking, index
generation) vouches for ``unchanged`` only when all four match; the record is ``pending`` with the new
fingerprint before anything of the file is written, and final last, so a crash in between never leaves
a record that says more than the index holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.documents.status import DocumentStatus
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.ingest.errors import IngestIncompleteError
from retrieval_core.ingest.ledger import Fingerprint, unchanged
from retrieval_core.models.ingest import ObjectRef

KEY = "contexts/acme/f.txt"


class Embedder:
    dimension = 2
    name = "local:all-MiniLM-L6-v2-int8"

    def __init__(self) -> None:
        self.fail = False

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.fail:
            raise IngestIncompleteError("killed while embedding")
        return [[1.0, float(len(text))] for text in texts]


def _files() -> tuple[DocumentFiles, MemoryObjects, RecordingSink, MemoryDocumentStatuses, Embedder]:
    objects, sink, statuses, embedder = MemoryObjects(), RecordingSink(), MemoryDocumentStatuses(), Embedder()
    files = DocumentFiles(
        sink=sink,
        objects=objects,
        statuses=statuses,
        embedder=embedder,
        vectors=None,
        mentions=MentionFinder(None, None),
        chunking=ChunkingPolicy(),
        metadata={},
    )
    return files, objects, sink, statuses, embedder


def _record(**fields: Any) -> DocumentStatus:
    base = {"key": "f.txt", "status": "indexed", "chunks": 1, "updated_at": "2026-12-06T00:00:00Z"}
    return DocumentStatus.model_validate(base | fields)


def test_unchanged_only_when_bytes_sidecar_chunking_and_generation_all_match() -> None:
    now = Fingerprint("bytes", "sidecar", "chunking", "gen-1")
    committed = _record(content_hash="bytes", sidecar_hash="sidecar", chunking="chunking", generation="gen-1")
    assert unchanged(committed, now)
    for other in (
        Fingerprint("other", "sidecar", "chunking", "gen-1"),
        Fingerprint("bytes", "other", "chunking", "gen-1"),
        Fingerprint("bytes", "sidecar", "other", "gen-1"),
        Fingerprint("bytes", "sidecar", "chunking", "gen-2"),  # another index holds what it wrote
        Fingerprint("bytes", "sidecar", "chunking", None),  # no index at all
    ):
        assert not unchanged(committed, other), other
    for status in ("pending", "failed", "skipped"):  # only a committed indexed record vouches
        assert not unchanged(committed.model_copy(update={"status": status}), now)


def test_pending_carries_the_new_fingerprint_and_every_id_a_retry_must_replace() -> None:
    files, objects, sink, statuses, _ = _files()
    objects.blobs[("b", KEY)] = b"One sentence here. " * 3
    first = files.created(ObjectRef("b", KEY, "v1", sequencer="01"))
    assert first is not None and first.status == "indexed"
    seen: list[DocumentStatus] = []
    load = sink.load

    def watched(entries: Any, **kwargs: Any) -> Any:
        seen.append(statuses.get("acme", "f.txt"))  # type: ignore[arg-type]
        return load(entries, **kwargs)

    sink.load = watched  # type: ignore[method-assign]
    objects.blobs[("b", KEY)] = b"Another text entirely. " * 3
    second = files.created(ObjectRef("b", KEY, "v2", sequencer="02"))
    assert second is not None and second.status == "updated"
    pending = seen[0]
    assert pending.status == "pending" and pending.chunks == max(first.chunks, second.chunks)
    assert pending.content_hash == second.content_hash != first.content_hash


def test_a_removal_is_pending_while_its_chunks_go_so_a_crash_never_leaves_a_false_indexed() -> None:
    files, objects, sink, statuses, _ = _files()
    objects.blobs[("b", KEY)] = b"One sentence here."
    assert files.created(ObjectRef("b", KEY, "v1", sequencer="01")).status == "indexed"  # type: ignore[union-attr]
    del objects.blobs[("b", KEY)]

    def crashing(entries: Any, **kwargs: Any) -> Any:
        raise IngestIncompleteError("killed while deleting")

    sink.load = crashing  # type: ignore[method-assign]
    with pytest.raises(IngestIncompleteError):
        files.removed(ObjectRef("b", KEY, sequencer="02"))
    left = statuses.get("acme", "f.txt")
    assert left is not None and (left.status, left.chunks) == ("pending", 1)


def test_a_kill_while_embedding_writes_nothing_and_leaves_the_record_as_true_as_it_was() -> None:
    files, objects, sink, statuses, embedder = _files()
    objects.blobs[("b", KEY)] = b"One sentence here."
    first = files.created(ObjectRef("b", KEY, "v1", sequencer="01"))
    loads = len(sink.loads)
    objects.blobs[("b", KEY)] = b"A new text to embed."
    embedder.fail = True
    with pytest.raises(IngestIncompleteError):
        files.created(ObjectRef("b", KEY, "v2", sequencer="02"))
    assert len(sink.loads) == loads and statuses.get("acme", "f.txt") == first  # its chunks are v1's
    embedder.fail = False
    again = files.created(ObjectRef("b", KEY, "v2", sequencer="03"))  # not unchanged: other bytes
    assert again is not None and again.status == "updated"
