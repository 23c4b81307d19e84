"""The documents' ledger (issue 67 items 1 and 6): a file's fingerprint (bytes, sidecar, chunking, index
generation) vouches for ``unchanged`` only when all four match; the record is ``pending`` with the new
fingerprint before anything of the file is written, and final last, so a crash in between never leaves
a record that says more than the index holds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
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
from retrieval_core.loading.loader import LoadReport
from retrieval_core.loading.parse import Delete, Upsert
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.item import Item
from retrieval_core.ports import NamedEntity

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


class MemoryIndex:
    """A sink that applies each load to a dict of items, and a search over what was made searchable
    (``refresh``): the back-links of one file at a time come from it, a batch's from the record."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.searchable: dict[str, Item] = {}
        self.loads: list[list[Upsert | Delete]] = []
        self.searches: list[int] = []
        """The pages of each back-link search (one call, one round trip)."""
        self.fail = False

    def load(self, entries: Iterable[Upsert | Delete], *, refresh: bool = True) -> LoadReport:
        if self.fail:
            raise IngestIncompleteError("the node went away")
        kept = list(entries)
        self.loads.append(kept)
        for entry in kept:
            if isinstance(entry, Delete):
                self.items.pop(entry.id, None)
            else:
                self.items[entry.item.id] = entry.item
        if refresh:
            self.refresh([])
        return LoadReport(loaded=sum(isinstance(entry, Upsert) for entry in kept))

    def refresh(self, context_ids: Iterable[str]) -> None:
        self.searchable = dict(self.items)

    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        self.searches.append(len(pages))
        return [
            [
                item.model_dump(mode="json", exclude_none=True)
                for item in self.searchable.values()
                if any(name in item.text for name in names)
                and (entity.entity_id, entity.name, entity.type)
                not in {(m.entity_id, m.name, m.type) for m in item.mentions}
            ][:limit]
            for names, entity in pages
        ]

    def chunks_mentioning(self, context_id: str, entity: NamedEntity, limit: int) -> list[dict[str, Any]]:
        key = (entity.entity_id, entity.name, entity.type)
        return [
            item.model_dump(mode="json", exclude_none=True)
            for item in self.searchable.values()
            if key in {(m.entity_id, m.name, m.type) for m in item.mentions}
        ][:limit]


class NoNames:
    def entity_names(self, context_id: str) -> list[NamedEntity]:
        return []


TOWNS = [
    "Alpha Ridge",
    "Beta Ridge",
    "Gamma Ridge",
    "Delta Ridge",
    "Omega Ridge",
    "Sigma Ridge",
    "Kappa Ridge",
]


def _pages(objects: MemoryObjects) -> list[str]:
    """Pages whose titles name each other, some before and some after their own (back-links both ways)."""
    keys = []
    for n, town in enumerate(TOWNS):
        named = [TOWNS[(n + 2) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]]
        text = f"# {town}\n\nThe road from {town} runs to {named[0]}.\n\nA bridge joins it to {named[1]} too."
        key = f"contexts/acme/{n}.md"
        objects.blobs[("b", key)] = text.encode()
        keys.append(key)
    return keys


def _files_over(
    index: MemoryIndex,
    statuses: MemoryDocumentStatuses | None = None,
    objects: MemoryObjects | None = None,
    **extra: Any,
) -> tuple[DocumentFiles, MemoryObjects, MemoryDocumentStatuses]:
    """Files whose chunks load into ``index``, their names found by nothing known before unless ``extra``
    gives ``mentions`` (``objects``:
    the store they are read from, one of their own when not given; ``extra``: the rest of
    ``DocumentFiles``' parts, a back-link search say)."""
    objects, statuses = objects or MemoryObjects(), statuses or MemoryDocumentStatuses()
    files = DocumentFiles(
        sink=index,
        objects=objects,
        statuses=statuses,
        embedder=Embedder(),
        vectors=None,
        chunking=ChunkingPolicy(),
        metadata={},
        **({"mentions": MentionFinder(NoNames(), None)} | extra),
    )
    return files, objects, statuses


def _indexed(batched: bool) -> tuple[MemoryIndex, MemoryDocumentStatuses]:
    index = MemoryIndex()
    files, objects, statuses = _files_over(index, naming=index, clock=lambda: NOON)
    keys = _pages(objects)
    if batched:
        with files.batched(files=3) as batch:
            answered = [files.created(ObjectRef("b", key, "v1")) for key in keys]
            assert {a.status for a in answered if a is not None} == {"pending"}  # queued, then committed
        assert [key for key, _ in batch.finished()] == keys
    else:
        for key in keys:
            files.created(ObjectRef("b", key, "v1"))
    return index, statuses


NOON = datetime(2026, 12, 6, 12, tzinfo=UTC)


def test_a_batched_sync_gives_the_same_chunks_statuses_and_back_links_as_one_file_at_a_time() -> None:
    alone, alone_statuses = _indexed(batched=False)
    together, together_statuses = _indexed(batched=True)
    assert together.items == alone.items and len(alone.items) == len(TOWNS)
    for n, town in enumerate(TOWNS):  # each page's chunk mentions both pages it names, before or after it
        named = {TOWNS[(n + 2) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]}
        assert named < {m.name for m in alone.items[f"acme:doc/{n}.md#0000"].mentions}, town
    assert together_statuses.rows == alone_statuses.rows
    # Three batches of files (3, 3, 1): one load of chunks and one of back-links each at most, and
    # the records written a batch at a time, pending then final.
    assert len(together.loads) <= 6 < len(alone.loads)
    assert together.searches == [3, 3, 1] and alone.searches == [1] * len(TOWNS)  # a search per batch
    assert together_statuses.puts_many == [3, 3, 3, 3]  # the last batch's single file writes alone


def test_a_crash_between_a_batch_s_chunks_and_its_final_records_leaves_every_file_pending() -> None:
    index = MemoryIndex()
    files, objects, statuses = _files_over(index)
    keys = _pages(objects)[:4]
    put_many = statuses.put_many

    def killed_at_the_finals(context_id: str, records: Sequence[DocumentStatus]) -> None:
        if records[0].status != "pending":
            raise IngestIncompleteError("killed after the load")
        put_many(context_id, records)

    statuses.put_many = killed_at_the_finals  # type: ignore[method-assign]
    with files.batched() as batch:
        for key in keys:
            files.created(ObjectRef("b", key, "v1"))
    finished = batch.finished()
    assert [key for key, _ in finished] == keys and all(isinstance(f, Exception) for _, f in finished)
    assert len(index.items) == len(keys)  # the chunks are durable ...
    assert {statuses.get("acme", f"{n}.md").status for n in range(4)} == {"pending"}  # type: ignore[union-attr]
    statuses.put_many = put_many  # type: ignore[method-assign]
    with files.batched() as batch:  # ... and the next sync redoes them: pending is never unchanged
        again = [files.created(ObjectRef("b", key, "v1")) for key in keys]
    assert {a.status for a in again if a is not None} == {"pending"}
    assert {s.status for _, s in batch.finished() if isinstance(s, DocumentStatus)} == {"indexed"}


def test_a_batch_whose_load_fails_leaves_its_files_pending_and_the_sync_going() -> None:
    index = MemoryIndex()
    files, objects, statuses = _files_over(index)
    keys = _pages(objects)[:3]
    index.fail = True
    with files.batched(files=2) as batch:
        for key in keys:
            files.created(ObjectRef("b", key, "v1"))  # the third finds the batch full: its commit fails
        index.fail = False  # the third's batch commits at the end
    finished = dict(batch.finished())
    assert all(isinstance(finished[key], IngestIncompleteError) for key in keys[:2])
    assert finished[keys[2]].status == "indexed"  # type: ignore[union-attr]
    assert [statuses.get("acme", f"{n}.md").status for n in range(3)] == ["pending", "pending", "indexed"]  # type: ignore[union-attr]
    assert set(index.items) == {"acme:doc/2.md#0000"}


def test_a_second_event_of_a_queued_file_commits_the_first_and_reads_its_record() -> None:
    files, objects, _, statuses, _ = _files()
    key = _pages(objects)[0]
    with files.batched() as batch:
        files.created(ObjectRef("b", key, "v1", sequencer="01"))
        assert key in batch and statuses.get("acme", "0.md") is None
        objects.blobs[("b", key)] = b"# Alpha Ridge\n\nAnother text now."
        files.created(ObjectRef("b", key, "v2", sequencer="02"))
        (first,) = batch.finished()
        assert first[1].status == "indexed"  # type: ignore[union-attr]
    (second,) = batch.finished()
    assert second[1].status == "updated"  # type: ignore[union-attr]


class CountedStatuses(MemoryDocumentStatuses):
    def __init__(self) -> None:
        super().__init__()
        self.gets = 0

    def get(self, context_id: str, key: str) -> DocumentStatus | None:
        self.gets += 1
        return super().get(context_id, key)


def test_a_batch_given_its_contexts_records_reads_none_per_file_and_keeps_them_as_it_writes() -> None:
    """A sync reads its context's records once and hands them to its batch: no read per file, and the
    same records as a batch that reads each (a second event of a file sees the first's record)."""
    index, counted = MemoryIndex(), CountedStatuses()
    files, objects, _ = _files_over(index, counted, naming=index, clock=lambda: NOON)
    keys = _pages(objects)
    with files.batched(files=3, records={"acme": {}}):
        for key in keys:
            files.created(ObjectRef("b", key, "v1", sequencer="01"))
        objects.blobs[("b", keys[0])] = b"# Alpha Ridge\n\nAnother text now."
        files.created(ObjectRef("b", keys[0], "v2", sequencer="02"))  # its first record, from the batch
    assert counted.gets == 0
    _, read_each = _indexed(batched=True)
    assert {k: s.status for k, s in counted.rows["acme"].items()} == {
        k: ("updated" if k == "0.md" else s.status) for k, s in read_each.rows["acme"].items()
    }
    with files.batched(records={"acme": dict(counted.rows["acme"])}):  # the next sync: all unchanged
        answered = [files.created(ObjectRef("b", key, "v2", sequencer="03")) for key in keys]
    assert {a.status for a in answered if a is not None} == {"unchanged"} and counted.gets == 0
