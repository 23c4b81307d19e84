"""A sync's batch commits while the next batch is planned (``Ledger.batched(ahead=True)``, issue 66): the
embedder and the stores' round trips overlap, and what the stores hold is what batches committed in
turn give: the same chunks, back-links and records, a second event of a committing file reading the
record its commit leaves, and each page linked back as the dictionary stood when its batch was full."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.documents.status import DocumentStatus
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.loading.loader import LoadReport
from retrieval_core.loading.parse import Delete, Upsert
from retrieval_core.models.ingest import ObjectRef
from test_document_ledger import NOON, TOWNS, Embedder, MemoryIndex, NoNames, _files, _files_over, _pages


class Later:
    """A submitted call that runs only when it is waited for (or at shutdown): a commit that has not
    started yet, whatever the timing, for tests of what must wait for it."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self._call, self._done, self._error = call, False, None

    def exception(self) -> BaseException | None:
        if not self._done:
            self._done = True
            try:
                self._call()
            except Exception as error:
                self._error = error
        return self._error


class LaterExecutor:
    def __init__(self, *_: Any, **__: Any) -> None:
        self.submitted: list[Later] = []

    def submit(self, function: Callable[..., Any], *args: Any) -> Later:
        self.submitted.append(Later(lambda: function(*args)))
        return self.submitted[-1]

    def shutdown(self) -> None:
        for later in self.submitted:
            later.exception()


@pytest.fixture
def commits_later(monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", LaterExecutor)


def _synced(files: DocumentFiles, keys: list[str], **batched: Any) -> None:
    with files.batched(files=3, **batched) as batch:
        answered = [files.created(ObjectRef("b", key, "v1")) for key in keys]
        assert {a.status for a in answered if a is not None} == {"pending"}
    assert [key for key, _ in batch.finished()] == keys


class HeldLoad(MemoryIndex):
    """The first load waits until ``go`` is set (by the planning of a later file) or a generous bound
    passes; ``overlapped`` says which."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()
        self.overlapped: bool | None = None
        self.threads: set[str] = set()

    def load(self, entries: Iterable[Upsert | Delete], *, refresh: bool = True) -> LoadReport:
        self.threads.add(threading.current_thread().name)
        if self.overlapped is None:
            self.overlapped = self.go.wait(timeout=30)  # a bound for a broken pipeline, not a timing
        return super().load(entries, refresh=refresh)


class ReadsTold(MemoryObjects):
    def __init__(self, told: Callable[[str], None]) -> None:
        super().__init__()
        self._told = told

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        self._told(ref.key)
        return super().read_bytes(ref, limit)


def test_a_batch_commits_while_the_next_is_planned_and_the_index_holds_what_turns_give() -> None:
    in_turn = MemoryIndex()
    files, objects, statuses = _files_over(in_turn, naming=in_turn, clock=lambda: NOON)
    keys = _pages(objects)
    _synced(files, keys)
    ahead = HeldLoad()
    fifth = keys[4]  # the second batch's second file: planned after the first batch was handed off
    read = ReadsTold(lambda key: ahead.go.set() if key == fifth else None)
    ahead_statuses = MemoryDocumentStatuses()
    _pages(read)
    ahead_files, _, _ = _files_over(ahead, ahead_statuses, read, naming=ahead, clock=lambda: NOON)
    _synced(ahead_files, keys, ahead=True)
    assert ahead.overlapped is True  # the first batch's load waited while the fifth file was read
    assert threading.current_thread().name not in ahead.threads  # every load on the committing thread
    assert ahead.items == in_turn.items and len(in_turn.items) == len(TOWNS)
    for n in range(len(TOWNS)):  # each page names one page before and one after it: both linked
        named = {TOWNS[(n + 2) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]}
        assert named < {m.name for m in ahead.items[f"acme:doc/{n}.md#0000"].mentions}
    assert ahead_statuses.rows == statuses.rows


@pytest.mark.usefixtures("commits_later")
def test_a_second_event_of_a_file_whose_batch_is_committing_reads_the_record_it_leaves() -> None:
    files, objects, _, statuses, _ = _files()
    keys = _pages(objects)
    with files.batched(files=3, ahead=True) as batch:
        for key in keys[:4]:  # the fourth hands the first three off
            files.created(ObjectRef("b", key, "v1", sequencer="01"))
        assert keys[0] in batch and statuses.get("acme", "0.md") is None  # committing, not yet done
        objects.blobs[("b", keys[0])] = b"# Alpha Ridge\n\nAnother text now."
        again = files.created(ObjectRef("b", keys[0], "v2", sequencer="02"))
        assert again is not None and again.status == "pending"
        assert statuses.get("acme", "1.md").status == "indexed"  # type: ignore[union-attr]
    finished = dict(batch.finished())  # the first event's final, then the second's
    assert isinstance(finished[keys[0]], DocumentStatus) and finished[keys[0]].status == "updated"


MERCURY = {
    "0.md": "# Notes\n\nMercury is the first of them.",
    "1.md": "# Mercury (planet)\n\nThe smallest planet.",
    "2.md": "# Plain\n\nNothing named.",
    "3.md": "# Other\n\nStill nothing.",
    "4.md": "# Mercury (element)\n\nA metal, liquid at room temperature.",
}


def _mercury(**batched: Any) -> dict[str, Any]:
    index = MemoryIndex()
    files, objects, _ = _files_over(index, naming=index, clock=lambda: NOON)
    for name, text in MERCURY.items():
        objects.blobs[("b", f"contexts/acme/{name}")] = text.encode()
    with files.batched(files=3, **batched):
        for name in MERCURY:
            files.created(ObjectRef("b", f"contexts/acme/{name}", "v1"))
    return index.items


@pytest.mark.usefixtures("commits_later")
def test_a_page_links_back_as_the_dictionary_stood_when_its_batch_was_full() -> None:
    """The planet's page commits after the element's page made "Mercury" ambiguous (its commit waits
    for the next batch's planning): its back-links still read the dictionary of its own batch."""
    in_turn, ahead = _mercury(), _mercury(ahead=True)
    assert ahead == in_turn
    names = {m.name for m in in_turn["acme:doc/0.md#0000"].mentions}
    assert "Mercury (planet)" in names  # by its alias, "Mercury", unambiguous until the element came


class InterruptedAt(Embedder):
    """Ctrl-C while the ``at``-th embedding call runs."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self._left = at

    def embed(self, texts: Any) -> list[list[float]]:
        self._left -= 1
        if self._left == 0:
            raise KeyboardInterrupt
        return super().embed(texts)


def test_ctrl_c_while_the_next_batch_embeds_ends_after_the_commit_in_flight_and_the_queue() -> None:
    index, statuses = MemoryIndex(), MemoryDocumentStatuses()
    objects = MemoryObjects()
    keys = _pages(objects)
    files = DocumentFiles(
        sink=index,
        objects=objects,
        statuses=statuses,
        embedder=InterruptedAt(6),  # the sixth file: the first batch committing, the fourth and fifth queued
        vectors=None,
        mentions=MentionFinder(NoNames(), None),
        chunking=ChunkingPolicy(),
        metadata={},
        naming=index,
    )
    with pytest.raises(KeyboardInterrupt), files.batched(files=3, ahead=True):
        for key in keys:
            files.created(ObjectRef("b", key, "v1"))
    recorded = {key: status.status for key, status in statuses.rows["acme"].items()}
    assert recorded == {f"{n}.md": "indexed" for n in range(5)}  # the sixth was never planned: no record
    assert len(index.items) == 5
