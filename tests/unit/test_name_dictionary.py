"""The ingest's entity dictionary at scale (issue 66): names found by a hash lookup of a text's word
n-grams (a cost of the text, not of the dictionary), the context's dictionary read once and kept across
files, extended in place, refreshed from what other writers add; and the chunks a sync wrote but has
not refreshed yet are still back-linked by a later page."""

from __future__ import annotations

import random
import resource
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink
from retrieval_core.documents import name_dictionary
from retrieval_core.documents.backlinks import UNSEARCHED_CHUNKS, UnsearchedChunks
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.limits import DocumentLimits
from retrieval_core.documents.name_dictionary import ContextNames, NameIndex, fold
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.loading.parse import Upsert
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.item import Item
from retrieval_core.ports import NamedEntity, Stored

PAGE = "page"


def page(context: str, title: str) -> NamedEntity:
    slug = "-".join(title.lower().split())
    return NamedEntity(f"{context}:entity/{slug}", title, PAGE)


def found(index: NameIndex, text: str) -> list[tuple[str, str]]:
    return [(entry.name, written) for entry, written in index.find(text)]


def test_names_are_found_as_a_turn_at_every_word_would_find_them() -> None:
    """``find`` looks up only where a name starts; a turn at every word (longest name first, the next
    turn after the name found) finds the same names, on texts dense with overlapping ones."""
    rng = random.Random(66)
    vocabulary = ["north", "depot", "annex", "river", "the", "old", "mill", "C++", "caf\u00e9", "x"]
    names = {" ".join(rng.choices(vocabulary, k=rng.randint(1, 4))) for _ in range(60)}
    index = NameIndex(page("a", name) for name in names)
    for _ in range(200):
        text = " ".join(rng.choice([w, w.upper(), w.title(), f"{w},"]) for w in rng.choices(vocabulary, k=40))
        assert list(index.find(text)) == list(_every_word(index, text))


def _every_word(index: NameIndex, text: str) -> Iterator[tuple[NamedEntity, str]]:
    words = list(name_dictionary.WORD.finditer(text))
    folded = [word.group().lower() for word in words]
    position = 0
    while position < len(words):
        for length in range(len(words) - position, 0, -1):
            entry = index.get(" ".join(folded[position : position + length]))
            if entry is not None:
                yield entry, text[words[position].start() : words[position + length - 1].end()]
                position += length
                break
        else:
            position += 1


def test_names_are_found_folded_longest_first_and_ambiguous_ones_are_left_out() -> None:
    index = NameIndex(
        [
            page("a", "North Depot"),
            page("a", "North Depot Annex"),
            page("a", "Maurice (film)"),
            NamedEntity("a:team/x", "Mercury", "Team"),
            NamedEntity("a:planet/y", "mercury", "Planet"),  # two entities answer to "mercury"
            NamedEntity("a:doc/f.md", "f.md", "file"),  # no text names a file
        ]
    )
    text = "Trucks left NORTH DEPOT  annex for north depot; Maurice, Mercury and Maurice (film)! f.md"
    assert found(index, text) == [
        ("North Depot Annex", "NORTH DEPOT  annex"),
        ("North Depot", "north depot"),
        ("Maurice (film)", "Maurice"),  # the title's alias
        ("Maurice (film)", "Maurice (film"),  # from its first word to its last
    ]
    assert index.get("maurice FILM") == page("a", "Maurice (film)") and index.get("Mercury") is None
    assert fold("C++  Primer (5th)") == "c++ primer 5th" and fold("Plain Words 2") == "plain words 2"


def test_a_page_wins_over_a_name_with_its_id_and_the_index_grows_in_place() -> None:
    index = NameIndex([NamedEntity("a:entity/west-virginia", "West Virginia", "name")])
    index.add([page("a", "West Virginia"), page("a", "Leland, North Carolina")])
    assert [(e.type, w) for e, w in index.find("Near Leland in West Virginia.")] == [
        (PAGE, "Leland"),
        (PAGE, "West Virginia"),
    ]


def names(count: int) -> Iterator[NamedEntity]:
    """``count`` page titles, generated (not held): two capitalised words and a number each."""
    return (NamedEntity(f"big:entity/{n}", f"Ridge {n:07d} Kappa", PAGE) for n in range(count))


class Generated:
    """A context's dictionary of a million page titles, counting its reads."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.reads = 0

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        self.reads += 1
        return list(names(self.count))


class Embedder:
    dimension = 2
    name = "local:all-MiniLM-L6-v2-int8"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


class NoVectors:
    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        return {}


class Naming:
    """A search that finds nothing (every chunk written is still unsearched): back-links come from the
    ingest's own record."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        self.asked += [list(names) for names, _ in pages]
        return [[] for _ in pages]


def _files(
    mentions: MentionFinder, naming: Naming | None = None
) -> tuple[DocumentFiles, MemoryObjects, RecordingSink]:
    objects, sink = MemoryObjects(), RecordingSink()
    files = DocumentFiles(
        sink=sink,
        objects=objects,
        statuses=MemoryDocumentStatuses(),
        embedder=Embedder(),
        vectors=NoVectors(),
        mentions=mentions,
        chunking=ChunkingPolicy(),
        metadata={},
        limits=DocumentLimits(),
        naming=naming,
    )
    return files, objects, sink


def _mentioned(sink: RecordingSink, load: int = -1) -> set[str]:
    return {m.name for line in sink.loads[load] if isinstance(line, Upsert) for m in line.item.mentions}


def test_a_context_of_a_million_names_links_a_page_whose_title_is_any_of_them() -> None:
    dictionary = Generated(1_000_000)
    files, objects, sink = _files(MentionFinder(dictionary, None))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    picked = [0, 1, 499_999, 999_998]
    objects.blobs[("b", "contexts/big/first.md")] = (
        f"# First\n\nTrucks left {' and '.join(f'Ridge {n:07d} Kappa' for n in picked)} at dawn.".encode()
    )
    files.created(ObjectRef("b", "contexts/big/first.md", "v1"))
    first = time.perf_counter() - started
    assert _mentioned(sink) >= {f"Ridge {n:07d} Kappa" for n in picked}
    # The next file pays for its own text only: the dictionary is not read again.
    started = time.perf_counter()
    objects.blobs[("b", "contexts/big/next.md")] = b"# Next\n\nRidge 0999999 Kappa met First."
    files.created(ObjectRef("b", "contexts/big/next.md", "v1"))
    later = time.perf_counter() - started
    assert _mentioned(sink) >= {"Ridge 0999999 Kappa", "First"} and dictionary.reads == 1
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(
        f"\n1,000,000 names: first file {first:.2f} s (reads and indexes the dictionary), "
        f"next file {later * 1000:.1f} ms; peak RSS grew {grown:.0f} MiB",
        file=sys.stderr,
    )


class Recent:
    """A dictionary with a recent-names read (``RecentNames``), recording what it was asked."""

    def __init__(self) -> None:
        self.whole: list[NamedEntity] = [page("c", "Alpha Ridge")]
        self.recent: list[NamedEntity] = []
        self.asked: list[str] = []

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        self.asked.append("whole")
        return list(self.whole)

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        self.asked.append(f"since {since:%H:%M:%S}")
        return list(self.recent)


def test_a_warm_dictionary_reads_what_others_added_every_few_seconds_and_all_of_it_when_old() -> None:
    source, now, wall = Recent(), [0.0], [datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)]
    names = ContextNames(source, NameIndex, clock=lambda: wall[0], monotonic=lambda: now[0])
    index = names.index("c")
    source.recent = [page("c", "Beta Ridge")]  # another container's page
    now[0] += name_dictionary.RECHECK_SECONDS / 2
    assert names.index("c") is index and index.get("Beta Ridge") is None  # not read yet
    now[0] += name_dictionary.RECHECK_SECONDS
    wall[0] += timedelta(seconds=8)
    assert names.index("c").get("Beta Ridge") == page("c", "Beta Ridge")
    since = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC) - name_dictionary.OVERLAP
    assert source.asked == ["whole", f"since {since:%H:%M:%S}"]
    now[0] += name_dictionary.MAX_AGE_SECONDS
    assert names.index("c") is not index and source.asked[-1] == "whole"


def test_a_container_keeps_a_few_contexts_the_least_recently_used_dropped_first() -> None:
    source = Recent()
    names = ContextNames(source, NameIndex, monotonic=lambda: 0.0)
    first = names.index("c0")
    for n in range(1, name_dictionary.CONTEXTS + 1):
        names.index(f"c{n}")
    assert source.asked.count("whole") == name_dictionary.CONTEXTS + 1
    assert names.index("c0") is not first  # dropped, read again


def test_a_deferred_sync_back_links_chunks_not_searchable_yet_and_refreshes_once_at_the_end() -> None:
    naming = Naming()
    files, objects, sink = _files(MentionFinder(Generated(0), None), naming)
    objects.blobs[("b", "contexts/big/a.md")] = b"# Alpha Ridge\n\nThe road to Beta Ridge was paved."
    objects.blobs[("b", "contexts/big/b.md")] = b"# Beta Ridge\n\nA town on the river."
    with files.deferred_refresh():
        files.created(ObjectRef("b", "contexts/big/a.md", "v1"))
        files.created(ObjectRef("b", "contexts/big/b.md", "v1"))
        assert sink.refreshed == []  # nothing made searchable file by file
    assert sink.refreshed == [{"big"}]
    # The page indexed second re-linked the chunk of the first, from the record (the search found none).
    (relinked,) = sink.loads[-1]
    assert isinstance(relinked, Upsert) and relinked.item.id == "big:doc/a.md#0000"
    assert [m.name for m in relinked.item.mentions] == ["a.md", "Alpha Ridge", "Beta Ridge"]
    assert naming.asked == [["Alpha Ridge"], ["Beta Ridge"]]


def test_an_event_alone_is_searchable_when_it_returns() -> None:
    files, objects, sink = _files(MentionFinder(Generated(0), None), Naming())
    objects.blobs[("b", "contexts/big/a.md")] = b"# Alpha Ridge\n\nText."
    files.created(ObjectRef("b", "contexts/big/a.md", "v1"))
    del objects.blobs[("b", "contexts/big/a.md")]
    files.removed(ObjectRef("b", "contexts/big/a.md", "v2"))
    assert sink.refreshed == [{"big"}, {"big"}]


def _chunk(n: int, text: str) -> Item:
    return Item.model_validate(
        {
            "context_id": "big",
            "id": f"big:doc/{n}.md#0000",
            "kind": "document",
            "text": text,
            "created_at": "2026-03-02T09:00:00Z",
            "mentions": [],
        }
    )


def test_the_record_of_unsearched_chunks_is_due_when_full_or_old_and_forgets_deletes() -> None:
    now = [0.0]
    record = UnsearchedChunks(lambda: now[0])
    record.written("big", [_chunk(0, "Beta Ridge is near."), _chunk(1, "Nothing here.")])
    assert record.due() == set()
    entry = page("big", "Beta Ridge")
    assert [s["id"] for s in record.naming("big", ["Beta Ridge"], entry)] == ["big:doc/0.md#0000"]
    record.written("big", deleted=["big:doc/0.md#0000"])
    assert record.naming("big", ["Beta Ridge"], entry) == [] and "big:doc/0.md#0000" not in record
    now[0] += 60
    assert record.due() == {"big"}
    record.searchable()
    record.written("big", [_chunk(n, "x") for n in range(UNSEARCHED_CHUNKS)])
    assert record.due() == {"big"}


def test_a_sync_alone_reads_names_already_known_less_often_until_a_read_brings_news() -> None:
    """A sync alone in its context reads back its own names (added as it wrote them) every few seconds:
    each read that adds nothing doubles the wait, up to a minute; a read that brings another writer's
    name goes back to every few seconds, and so does the container once the sync ends."""
    source, now = Recent(), [0.0]
    names = ContextNames(source, NameIndex, monotonic=lambda: now[0])
    names.index("c").add([page("c", "Own Page")])  # what this container wrote, added as it went
    source.recent = [page("c", "Own Page"), page("c", "Alpha Ridge")]
    reads_over = _reads_over(names, source, now)
    with names.only_writer():
        assert reads_over(5 + 10 + 20 + 40) == 4  # at 5, 15, 35 and 75 s: each added nothing
        assert reads_over(5 * name_dictionary.QUIET_RECHECK_SECONDS) == 5  # at most one a minute
        source.recent.append(page("c", "Beta Ridge"))  # another writer's page
        assert reads_over(name_dictionary.QUIET_RECHECK_SECONDS) == 1
        assert names.index("c").get("Beta Ridge") == page("c", "Beta Ridge")
        assert reads_over(name_dictionary.RECHECK_SECONDS) == 1  # news: every few seconds again
        assert reads_over(5 + 10 + 20) == 2  # quiet again: 10 then 20 s apart
    assert reads_over(2 * name_dictionary.RECHECK_SECONDS) == 2  # the sync over: every few seconds


def test_a_deployed_container_reads_other_writers_names_every_few_seconds_however_quiet() -> None:
    """Several containers write one context at a burst's start: a quiet minute must not make this one
    see another's first names a minute late."""
    source, now = Recent(), [0.0]
    names = ContextNames(source, NameIndex, monotonic=lambda: now[0])
    names.index("c").add([page("c", "Own Page")])
    source.recent = [page("c", "Own Page")]
    reads_over = _reads_over(names, source, now)
    assert reads_over(name_dictionary.QUIET_RECHECK_SECONDS) == 12  # every 5 s, none bringing news
    source.recent.append(page("c", "Beta Ridge"))  # another container's first page
    assert reads_over(name_dictionary.RECHECK_SECONDS) == 1
    assert names.index("c").get("Beta Ridge") == page("c", "Beta Ridge")


def _reads_over(names: ContextNames, source: Recent, now: list[float]) -> Callable[[float], int]:
    """Asks ``names`` for the context each second for ``seconds``; says how many reads that made."""

    def reads_over(seconds: float) -> int:
        asked = len(source.asked)
        for _ in range(int(seconds)):
            now[0] += 1.0
            names.index("c")
        return len(source.asked) - asked

    return reads_over


class OnlyWriterFinder(MentionFinder):
    """Says whether its dictionary was told the process writes alone when it was read."""

    def __init__(self) -> None:
        super().__init__(Generated(0), None)
        self.alone = 0
        self.alone_when_read: list[bool] = []

    @contextmanager
    def only_writer(self, ignored: Any = None) -> Iterator[None]:
        self.alone += 1
        try:
            yield
        finally:
            self.alone -= 1

    def dictionary(self, context_id: str) -> NameIndex:
        self.alone_when_read.append(self.alone > 0)
        return super().dictionary(context_id)


def test_a_batched_sync_writes_alone_and_an_event_alone_does_not() -> None:
    finder = OnlyWriterFinder()
    files, objects, _ = _files(finder, Naming())
    objects.blobs[("b", "contexts/big/a.md")] = b"# Alpha Ridge\n\nText."
    objects.blobs[("b", "contexts/big/b.md")] = b"# Beta Ridge\n\nText."
    files.created(ObjectRef("b", "contexts/big/a.md", "v1"))
    assert finder.alone_when_read and not any(finder.alone_when_read)
    finder.alone_when_read.clear()
    with files.batched():
        files.created(ObjectRef("b", "contexts/big/b.md", "v1"))
    assert finder.alone_when_read and all(finder.alone_when_read) and finder.alone == 0
