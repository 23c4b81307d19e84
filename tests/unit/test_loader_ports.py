"""The loader against in-memory write ports: what it asks of any backend (the order of writes, what a
refusal or an outage leaves, the counts it reports), with no OpenSearch or DynamoDB in the way."""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fakes_store import FixedEmbedder
from fakes_writes import MemoryItemWriter, MemoryKeyLedger, MemoryLineageWriter
from retrieval_core.loading.loader import LISTED_ERRORS, Loader
from retrieval_core.loading.metadata_keys import PoolKeyBudget
from retrieval_core.loading.parse import Delete, Upsert
from retrieval_core.models.item import Item
from retrieval_core.models.metadata import FieldType
from retrieval_core.ports import WriteRefusal

DIMENSION = 3


def line(item_id: str, **fields: Any) -> str:
    item = {
        "id": item_id,
        "context_id": "acme",
        "kind": "proposition",
        "text": f"text of {item_id}",
        "created_at": "2026-03-02T09:00:00Z",
        "embedding": [1.0, 0.0, 0.0],
        **fields,
    }
    return json.dumps(item)


def delete(item_id: str) -> str:
    return json.dumps({"op": "delete", "id": item_id})


@pytest.fixture
def ports() -> tuple[MemoryItemWriter, MemoryLineageWriter]:
    return MemoryItemWriter(), MemoryLineageWriter()


def loader_of(ports: tuple[MemoryItemWriter, MemoryLineageWriter], **options: Any) -> Loader:
    items, lineage = ports
    return Loader(items=items, lineage=lineage, embedder=FixedEmbedder({}, DIMENSION), **options)


def test_a_load_writes_documents_and_rows_and_a_reload_counts_updates_and_drops_stale_rows(
    ports: Any,
) -> None:
    items, lineage = ports
    first = loader_of(ports).load_lines([line("acme:p-1", source_ids=["acme:p-0"]), line("acme:p-2")])
    assert (first.loaded, first.updated, first.ok) == (2, 0, True)
    assert set(items.documents) == {("acme", "acme:p-1"), ("acme", "acme:p-2")}
    assert (items.prepared, items.refreshed) == ({"acme"}, {"acme"})
    assert lineage.rows == {("acme", "link:acme:p-0:acme:p-1")}

    again = loader_of(ports).load_lines([line("acme:p-1", source_ids=["acme:p-9"])])
    assert (again.loaded, again.updated) == (1, 1)
    assert lineage.rows == {("acme", "link:acme:p-9:acme:p-1")}


def test_deletes_remove_rows_document_and_card_and_count_what_was_absent(ports: Any) -> None:
    items, lineage = ports
    loader_of(ports).load_lines([line("acme:p-1", source_ids=["acme:p-0"])])
    report = loader_of(ports).load_lines([delete("acme:p-1"), delete("acme:p-404")], context_id="acme")
    assert (report.deleted, report.absent, report.ok) == (1, 1, True)
    assert (items.documents, lineage.cards, lineage.rows) == ({}, {}, set())


def test_a_final_refusal_is_a_rejected_line_and_a_new_items_rows_are_removed_again(ports: Any) -> None:
    items, lineage = ports
    items.refusing["acme:p-2"] = WriteRefusal("acme:p-2", final=True, reason="the index refused the item")
    report = loader_of(ports).load_lines([line("acme:p-1"), line("acme:p-2", source_ids=["acme:p-1"])])
    assert (report.loaded, [str(error) for error in report.errors]) == (
        1,
        ["line 2: (item): the index refused the item"],
    )
    assert set(lineage.cards) == {("acme", "acme:p-1")} and lineage.rows == set()


def test_a_refusal_worth_retrying_names_the_item_as_unwritten(ports: Any) -> None:
    items, _ = ports
    items.refusing["acme:p-1"] = WriteRefusal("acme:p-1", final=False, reason="throttled")
    report = loader_of(ports).load_lines([line("acme:p-1")])
    assert (report.loaded, report.unwritten, report.errors) == (0, ["acme:p-1"], [])


def test_an_unavailable_store_stops_the_load_and_names_every_item_not_written(ports: Any) -> None:
    items, lineage = ports
    items.unavailable = True
    report = loader_of(ports, batch_size=1).load_lines(
        [line("acme:p-1"), line("acme:p-2"), delete("acme:p-3")]
    )
    assert report.stopped == "the search store is down"
    assert (report.loaded, report.unwritten) == (0, ["acme:p-1", "acme:p-2", "acme:p-3"])
    assert lineage.cards == {}


def test_after_a_stop_the_entries_still_to_come_are_named_but_not_held(ports: Any) -> None:
    """A stop early in a long file: each later entry is named unwritten and let go (its vector with it),
    so what the load holds does not grow with what is left of the file."""
    items, _ = ports
    items.unavailable = True
    held: list[weakref.ref[Item]] = []
    alive_when_next: list[bool] = []

    def entries() -> Iterator[Upsert]:
        for n in range(1, 8):
            if len(held) >= 4:  # past the stopped batch (the loop still names the entry just before)
                alive_when_next.append(held[-2]() is not None)
            item = Item.model_validate(json.loads(line(f"acme:p-{n}")))
            held.append(weakref.ref(item))
            yield Upsert(n, item)

    report = loader_of(ports, batch_size=2).load(entries())
    assert report.stopped and report.unwritten == [f"acme:p-{n}" for n in range(1, 8)]
    assert alive_when_next and not any(alive_when_next)


class CountingEmbedder(FixedEmbedder):
    def __init__(self) -> None:
        super().__init__({}, DIMENSION)
        self.calls = 0
        self.called = threading.Condition()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self.called:
            self.calls += 1
            self.called.notify_all()
        return super().embed(texts)


class WaitingWriter(MemoryItemWriter):
    """Holds the documents of each batch but the last until the embedder has been asked for the next
    batch's vectors, and notes whether that happened."""

    def __init__(self, embedder: CountingEmbedder, batches: int) -> None:
        super().__init__()
        self._embedder, self._batches = embedder, batches
        self.saw_the_next_batch_embedded: list[bool] = []

    def index(self, items: Sequence[tuple[Item, Sequence[float]]]) -> list[WriteRefusal]:
        batch = len(self.saw_the_next_batch_embedded) + 1
        if batch < self._batches:
            with self._embedder.called:  # a bound, not a pause: a loader that reads only after writing
                seen = self._embedder.called.wait_for(lambda: self._embedder.calls > batch, timeout=10)
            self.saw_the_next_batch_embedded.append(seen)
        return super().index(items)


def test_the_next_batch_is_read_and_embedded_while_the_last_one_is_written() -> None:
    """The load's reading (parsing, embedding) runs beside its writes, one batch ahead; the writes keep
    file order."""
    embedder = CountingEmbedder()
    items = WaitingWriter(embedder, batches=3)
    loader = Loader(items=items, lineage=MemoryLineageWriter(), embedder=embedder, batch_size=2)
    report = loader.load_lines([line(f"acme:p-{n}", embedding=None) for n in range(1, 6)])
    assert (report.loaded, report.ok, embedder.calls) == (5, True, 3)
    assert items.saw_the_next_batch_embedded == [True, True]
    assert list(items.documents) == [("acme", f"acme:p-{n}") for n in range(1, 6)]


def test_the_pool_budget_refuses_lines_past_a_contexts_metadata_key_cap(ports: Any) -> None:
    ledger = MemoryKeyLedger()
    budget = PoolKeyBudget(ledger, declared={}, cap=2)
    report = loader_of(ports, key_budget=budget).load_lines(
        [line("acme:p-1", metadata={"a": "1", "b": "2"}), line("acme:p-2", metadata={"c": "3"})]
    )
    assert report.loaded == 1 and [(e.line, e.field) for e in report.errors] == [(2, "metadata")]
    assert ledger.keys == {"acme": {"a", "b"}}


class RacedKeyLedger(MemoryKeyLedger):
    """A ledger another writer reaches first: just before this load's first reservation, it records
    ``theirs`` for acme, so the keys this load knew are stale."""

    def __init__(self, theirs: set[str]) -> None:
        super().__init__()
        self._theirs: set[str] | None = theirs

    def add_within(self, context_id: str, keys: set[str], cap: int) -> bool:
        if self._theirs is not None:
            self.keys.setdefault(context_id, set()).update(self._theirs)
            self._theirs = None
        return super().add_within(context_id, keys, cap)


def test_a_raced_key_budget_reserves_line_by_line_and_keeps_the_cap(ports: Any) -> None:
    """Three lines of two new keys fit a cap of 6 as the load saw the ledger (empty); another writer
    took 3 keys meanwhile, so the whole batch is refused by the conditional write, and line by line the
    first line fits (5 of 6) and the other two do not."""
    ledger = RacedKeyLedger({"x", "y", "z"})
    budget = PoolKeyBudget(ledger, declared={}, cap=6)
    report = loader_of(ports, key_budget=budget).load_lines(
        [
            line("acme:p-1", metadata={"a": "1", "b": "2"}),
            line("acme:p-2", metadata={"c": "3", "d": "4"}),
            line("acme:p-3", metadata={"e": "5", "f": "6"}),
        ]
    )
    assert report.loaded == 1 and [(e.line, e.field) for e in report.errors] == [
        (2, "metadata"),
        (3, "metadata"),
    ]
    assert ledger.keys == {"acme": {"x", "y", "z", "a", "b"}}


def test_items_longer_than_the_embedders_window_are_reported_and_still_loaded(ports: Any) -> None:
    """A 420-word item: past the window, its vector does not see its end; the report names it."""
    long_text = " ".join(["word"] * 419 + ["answer."])
    report = loader_of(ports).load_lines(
        [line("acme:p-1", text=long_text, embedding=None), line("acme:p-2", text="Short.", embedding=None)]
    )
    assert report.loaded == 2 and report.past_window == ["acme:p-1"]
    assert "1 items longer than the embedder's window" in report.summary()


def test_items_built_in_memory_load_as_their_lines_would_and_are_checked_against_the_metadata_types(
    ports: Any,
) -> None:
    items, lineage = ports
    loader = loader_of(ports, metadata={"year": FieldType.NUMBER})
    built = [Item.model_validate(json.loads(line(f"acme:p-{n}", metadata={"year": n}))) for n in (1, 2)]
    wrong = Item.model_validate(json.loads(line("acme:p-3", metadata={"year": "soon"})))
    loader.load_lines([line("acme:p-9")])
    entries = [Upsert(n, item) for n, item in enumerate([*built, wrong])]
    report = loader.load([*entries, Delete("acme:p-9")])
    assert (report.loaded, report.deleted, [e.line for e in report.errors]) == (2, 1, [2])
    assert set(items.documents) == {("acme", "acme:p-1"), ("acme", "acme:p-2")}
    assert items.documents[("acme", "acme:p-2")][0] == built[1] and ("acme", "acme:p-9") not in lineage.cards


def test_a_file_of_many_bad_lines_lists_the_first_and_counts_the_rest(ports: Any) -> None:
    bad = LISTED_ERRORS * 3
    lines = ["{not json"] * bad + [line("acme:p-1")] + ["{not json"] * 5
    report = loader_of(ports).load_lines(lines)
    assert (report.loaded, report.rejected, len(report.errors)) == (1, bad + 5, LISTED_ERRORS)
    assert report.omitted_errors == bad + 5 - LISTED_ERRORS
    assert [error.line for error in report.errors] == list(range(1, LISTED_ERRORS + 1))
    assert f"{bad + 5} bad lines skipped" in report.summary() and not report.ok
