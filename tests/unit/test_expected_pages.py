"""A sync's pages known before their files are (``documents.expected_pages``, issue 66): a chunk naming a
page later in the sync mentions it at its first write, as the page's back-link would have made it, so
no chunk is written twice; the stores hold what today's back-links give, in any order of the files; a
page expected that never comes (its file fails, comes with another title, or never reaches the ingest)
leaves no chunk mentioning it, its mentions removed before its file's final record."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects
from retrieval_core.documents.chunk_items import FILE_ENTITY_TYPE
from retrieval_core.documents.entities import MentionFinder, entity_id_of
from retrieval_core.documents.expected_pages import ExpectedPages
from retrieval_core.documents.name_dictionary import NameIndex
from retrieval_core.documents.name_rules import RuleBasedExtractor
from retrieval_core.ingest.errors import IngestIncompleteError
from retrieval_core.loading.parse import Upsert
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.limits import LIMITS
from retrieval_core.ports import NamedEntity
from retrieval_dev.cli.sync_titles import expected_titles, page_title_of
from test_document_ledger import NOON, TOWNS, MemoryIndex, _files_over, _pages

Synced = tuple[MemoryIndex, MemoryDocumentStatuses]


def _sync(
    order: Sequence[int],
    *,
    expect: bool,
    extractor: bool = False,
    titles: dict[str, str] | None = None,
    blobs: dict[int, bytes] | None = None,
    sent: Sequence[int] | None = None,
    pages: dict[int, bytes] | None = None,
    index: MemoryIndex | None = None,
    statuses: MemoryDocumentStatuses | None = None,
) -> Synced:
    """The towns' pages synced in ``order`` (batches of 3, committed ahead) as ``retrieval sync`` does:
    with its pre-pass's titles (``expect``; ``titles`` in their place when given) or without. ``blobs``
    replaces pages' bytes after the pre-pass read them (``pages``: before); ``sent``: the pages whose
    events run (all)."""
    index = index or MemoryIndex()
    mentions = MentionFinder(_Names(), RuleBasedExtractor() if extractor else None)
    files, objects, statuses = _files_over(
        index, statuses, naming=index, clock=lambda: NOON, mentions=mentions, generation=_generation(index)
    )
    keys = _pages(objects)
    for n, data in (pages or {}).items():
        objects.blobs[("b", keys[n])] = data
    ordered = [keys[n] for n in order]
    read = expected_titles((key, objects.blobs[("b", key)]) for key in ordered)
    for n, data in (blobs or {}).items():
        objects.blobs[("b", keys[n])] = data
    expected = ExpectedPages("acme") if expect else None
    with files.batched(files=3, ahead=True, expected=expected):
        if expected is not None:
            expected.expect(read if titles is None else titles)
        for n in order if sent is None else sent:
            files.created(ObjectRef("b", keys[n], "v1"))
    return index, statuses


def _generation(index: MemoryIndex) -> Callable[[str], str | None]:
    """The index's generation as OpenSearch gives it: none before its first load creates it."""
    return lambda context_id: "g1" if index.loads else None


class _Names:
    def entity_names(self, context_id: str) -> list[Any]:
        return []


def _mentions(index: MemoryIndex) -> dict[str, set[str]]:
    return {chunk_id: {m.entity_id for m in item.mentions} for chunk_id, item in index.items.items()}


def _writes(index: MemoryIndex) -> Counter[str]:
    """How many times each chunk was loaded."""
    return Counter(e.item.id for load in index.loads for e in load if isinstance(e, Upsert))


ORDERS = [list(range(len(TOWNS))), list(reversed(range(len(TOWNS)))), random.Random(66).sample(range(7), 7)]


@pytest.mark.parametrize("extractor", [False, True])
@pytest.mark.parametrize("order", ORDERS)
def test_a_sync_that_expects_its_pages_writes_each_chunk_once_and_holds_what_back_links_give(
    order: list[int], extractor: bool
) -> None:
    today, today_statuses = _sync(order, expect=False, extractor=extractor)
    ahead, ahead_statuses = _sync(order, expect=True, extractor=extractor)
    assert ahead.items == today.items  # the same mentions, in the same places (so the same edge rows)
    assert ahead_statuses.rows == today_statuses.rows
    assert max(_writes(today).values()) > 1  # today: chunks re-written by later pages' back-links
    assert set(_writes(ahead).values()) == {1}  # ahead: each chunk written once
    assert today.searches and not ahead.searches  # a fresh context, every title linked ahead: no search
    for n in range(len(TOWNS)):  # both pages each names, before or after it
        named = {TOWNS[(n + 2) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]}
        assert named < {m.name for m in ahead.items[f"acme:doc/{n}.md#0000"].mentions}


def test_the_order_of_the_files_changes_no_link() -> None:
    found = [_mentions(_sync(order, expect=True, extractor=True)[0]) for order in ORDERS]
    assert found[0] == found[1] == found[2]


@pytest.mark.parametrize("order", ORDERS)
def test_two_files_with_one_title_link_as_they_do_without_the_pre_pass(order: list[int]) -> None:
    """The first file of a title planned puts it in the dictionary: chunks after it mention it where
    the dictionary finds it, before it as its back-link would (the second file changes nothing)."""
    twin = {6: b"# Gamma Ridge\n\nAnother page of Gamma Ridge names Alpha Ridge and Delta Ridge."}
    today, today_statuses = _sync(order, expect=False, extractor=True, pages=twin)
    ahead, ahead_statuses = _sync(order, expect=True, extractor=True, pages=twin)
    assert ahead.items == today.items and ahead_statuses.rows == today_statuses.rows


GAMMA = 2  # the page "Gamma Ridge": pages 0 and 4 name it, one before it and one after


@pytest.mark.parametrize(
    "blob",
    [
        b"",  # empty: failed
        b"# Gamma Peak\n\nThe page came with another title.",
        b"<html><body><h1>Gamma Ridge</h1>",  # read as Markdown: no title heading, its text all
        b"# Gamma Ridge\n\n" + b"word " * 2_000_000,  # past the file's bounds
    ],
    ids=["failed", "retitled", "untitled", "too large"],
)
@pytest.mark.parametrize("extractor", [False, True])
def test_a_page_expected_that_does_not_come_is_mentioned_by_no_chunk(blob: bytes, extractor: bool) -> None:
    """With the extractor, the chunks naming it keep the name it extracted (the page's mention had
    replaced it), in the place it had."""
    order = list(range(len(TOWNS)))
    today, today_statuses = _sync(order, expect=False, blobs={GAMMA: blob}, extractor=extractor)
    ahead, ahead_statuses = _sync(order, expect=True, blobs={GAMMA: blob}, extractor=extractor)
    assert ahead.items == today.items and ahead_statuses.rows == today_statuses.rows
    pages = {m.name for item in ahead.items.values() for m in item.mentions if m.type == "page"}
    assert "Gamma Ridge" not in pages


def test_a_page_whose_file_never_reaches_the_ingest_is_unlinked_at_the_end() -> None:
    order, sent = list(range(len(TOWNS))), [n for n in range(len(TOWNS)) if n != GAMMA]
    today, _ = _sync(order, expect=False, sent=sent)
    ahead, _ = _sync(order, expect=True, sent=sent)
    assert ahead.items == today.items
    assert not any(m.name == "Gamma Ridge" for item in ahead.items.values() for m in item.mentions)


def test_a_kill_while_unlinking_leaves_the_page_s_batch_unrecorded_and_its_re_run_unlinks() -> None:
    """The failed page's final record comes after its unlinking: killed in between, its batch's files
    have no final record (nothing says they are done), so the sync's re-run sends the page's file
    again, and its failure unlinks the mentions the killed sync gave, though the re-run gave none."""
    index, statuses = Unlinking(), MemoryDocumentStatuses()
    order = [0, 1, 3, 4, 5, 6, GAMMA]  # the pages naming it (0 and 4) in batches committed before it
    _sync(order, expect=True, blobs={GAMMA: b""}, index=index, statuses=statuses)
    assert index.killed and statuses.get("acme", "2.md") is None
    assert any(m.name == "Gamma Ridge" for m in index.items["acme:doc/0.md#0000"].mentions)
    loads = len(index.loads)
    _sync(order, expect=True, blobs={GAMMA: b""}, index=index, statuses=statuses)
    rewritten = {e.item.id for load in index.loads[loads:] for e in load if isinstance(e, Upsert)}
    assert rewritten == {"acme:doc/0.md#0000", "acme:doc/4.md#0000"}  # the others are unchanged
    assert not any(m.name == "Gamma Ridge" for item in index.items.values() for m in item.mentions)
    recorded = statuses.get("acme", "2.md")
    assert recorded is not None and recorded.status == "failed"


class Unlinking(MemoryIndex):
    """Killed at its first load that removes a mention (the unlinking)."""

    def __init__(self) -> None:
        super().__init__()
        self.killed = False

    def load(self, entries: Any, *, refresh: bool = True) -> Any:
        kept = list(entries)
        unlinking = any(
            isinstance(e, Upsert)
            and e.item.id in self.items
            and len(e.item.mentions) < len(self.items[e.item.id].mentions)
            for e in kept
        )
        if unlinking and not self.killed:
            self.killed = True
            raise IngestIncompleteError("killed while unlinking")
        return super().load(kept, refresh=refresh)


def test_a_re_sync_with_renamed_titles_links_the_new_names_and_unlinks_none_it_should_keep() -> None:
    """The second sync renames "Gamma Ridge" to "Gamma Peak" and the pages naming it say so: the same
    stores as the re-sync without its pre-pass, each chunk written once more at most."""
    renamed = {
        n: text.replace(b"Gamma Ridge", b"Gamma Peak")
        for n, text in enumerate(_blobs())
        if b"Gamma Ridge" in text
    }
    results = []
    for expect in (False, True):
        index, statuses = _sync(list(range(len(TOWNS))), expect=expect)
        loads = len(index.loads)
        _resync(index, statuses, renamed, expect=expect)
        results.append((index, statuses, loads))
    (today, today_statuses, _), (ahead, ahead_statuses, before) = results
    assert ahead.items == today.items and ahead_statuses.rows == today_statuses.rows
    assert "Gamma Peak" in {m.name for m in ahead.items["acme:doc/0.md#0000"].mentions}
    again = Counter(e.item.id for load in ahead.loads[before:] for e in load if isinstance(e, Upsert))
    assert set(again.values()) == {1}


def _blobs() -> list[bytes]:
    objects = MemoryObjects()
    return [objects.blobs[("b", key)] for key in _pages(objects)]


def _resync(
    index: MemoryIndex, statuses: MemoryDocumentStatuses, changed: dict[int, bytes], *, expect: bool
) -> None:
    files, objects, _ = _files_over(
        index, statuses, naming=index, clock=lambda: NOON, mentions=MentionFinder(_Known(index), None)
    )
    keys = _pages(objects)
    for n, data in changed.items():
        objects.blobs[("b", keys[n])] = data
    sent = [keys[n] for n in sorted(changed)]
    expected = ExpectedPages("acme") if expect else None
    with files.batched(files=3, ahead=True, expected=expected):
        if expected is not None:
            expected.expect(expected_titles((key, objects.blobs[("b", key)]) for key in sent))
        for key in sent:
            files.created(ObjectRef("b", key, "v2", sequencer="02"))


class _Known:
    """The dictionary a second sync reads: the names the index's mentions give."""

    def __init__(self, index: MemoryIndex) -> None:
        self._index = index

    def entity_names(self, context_id: str) -> list[Any]:
        from retrieval_core.ports import NamedEntity

        return [
            NamedEntity(m.entity_id, m.name, m.type)
            for item in self._index.items.values()
            for m in item.mentions
        ]


def test_the_pre_pass_reads_a_page_s_title_as_its_indexing_does() -> None:
    assert page_title_of("a.md", b"#   Alpha   Ridge \n\nText.") == "Alpha Ridge"
    assert page_title_of("a.html", b"<html><body><h1>Beta</h1><p>Text here.</p></body></html>") == "Beta"
    assert page_title_of("a.md", b"Text before any heading.\n\n# Later") is None
    assert page_title_of("a.txt", b"# Not a heading in plain text") is None
    assert page_title_of("a.md", b"   ") is None


def test_a_new_file_of_an_indexed_page_s_title_that_fails_unlinks_nothing() -> None:
    """A re-sync's new file expected under the title of a page indexed before fails: the page exists
    (its own chunk is about it), so the chunks naming it keep their mentions."""
    index, statuses = _sync(list(range(len(TOWNS))), expect=True)
    before = dict(index.items)
    files, objects, _ = _files_over(
        index, statuses, naming=index, clock=lambda: NOON, mentions=MentionFinder(_Known(index), None)
    )
    _pages(objects)
    key = "contexts/acme/twin.md"
    objects.blobs[("b", key)] = b"  "
    expected = ExpectedPages("acme")
    with files.batched(files=3, ahead=True, expected=expected):
        expected.expect({key: TOWNS[GAMMA]})
        assert files.created(ObjectRef("b", key, "v1")) is not None
    assert index.items == before
    assert TOWNS[GAMMA] in {m.name for m in index.items["acme:doc/0.md#0000"].mentions}
    recorded = statuses.get("acme", "twin.md")
    assert recorded is not None and recorded.status == "failed"


def test_what_a_chunk_names_without_a_page_that_never_came_is_the_extractor_s_name() -> None:
    """A dictionary that read the mentions a sync gave ahead back from the index holds the page: what
    the unlinking puts back in the page's mention's place is then the extractor's name, not the page."""
    from retrieval_core.documents.limits import DOCUMENT_LIMITS
    from retrieval_core.ingest.indexer import Indexer
    from retrieval_core.ports import NamedEntity
    from test_document_ledger import Embedder

    page = NamedEntity("acme:entity/gamma-ridge", "Gamma Ridge", "page")

    class ReadBack:
        def entity_names(self, context_id: str) -> list[NamedEntity]:
            return [page]

    indexer = Indexer(
        objects=MemoryObjects(),
        embedder=Embedder(),
        vectors=None,
        mentions=MentionFinder(ReadBack(), RuleBasedExtractor()),
        metadata={},
        limits=DOCUMENT_LIMITS,
        fields=None,
    )
    named = indexer.named("acme", "The road from here runs to Gamma Ridge in the hills.", page)
    (gamma,) = [m for m in named if m["entity_id"] == page.entity_id]
    assert gamma["type"] != "page" and gamma["name"] == "Gamma Ridge"


def test_the_dictionary_s_reads_leave_out_a_page_mentioned_ahead_until_it_is_indexed() -> None:
    """The mentions a sync gives ahead are in the index before their page: the dictionary's reads (whole
    or recent) leave them out, so no chunk finds the page in the dictionary before its file is planned
    (and none finds one that never comes), and they bring no news that keeps the reads frequent."""
    from retrieval_core.documents.name_dictionary import ContextNames
    from retrieval_core.ports import NamedEntity

    page = NamedEntity("acme:entity/gamma-ridge", "Gamma Ridge", "page")
    other = NamedEntity("acme:entity/beta-ridge", "Beta Ridge", "page")

    class Index:
        def entity_names(self, context_id: str) -> list[NamedEntity]:
            return [page, other]

        def entity_names_since(self, context_id: str, since: Any) -> list[NamedEntity]:
            return [page, other]

    expected = ExpectedPages("acme")
    expected.expect({"contexts/acme/2.md": "Gamma Ridge"})
    now = [0.0]
    names = ContextNames(Index(), NameIndex, monotonic=lambda: now[0])
    with names.only_writer(expected.ahead):
        assert names.index("acme").get("Gamma Ridge") is None
        assert names.index("acme").get("Beta Ridge") == other
        expected.committed([("contexts/acme/2.md", "Gamma Ridge")])  # its page indexed now
        now[0] += 60.0
        assert names.index("acme").get("Gamma Ridge") == page
    assert ContextNames(Index(), NameIndex).index("acme").get("Gamma Ridge") == page  # outside a sync: all


class KilledAt(MemoryIndex):
    """Its load of ``chunk``'s first write fails once (the process killed there, its batch pending)."""

    def __init__(self, chunk: str) -> None:
        super().__init__()
        self._chunk = chunk

    def load(self, entries: Any, *, refresh: bool = True) -> Any:
        kept = list(entries)
        if self._chunk and any(isinstance(e, Upsert) and e.item.id == self._chunk for e in kept):
            self._chunk = ""
            raise IngestIncompleteError("killed while loading")
        return super().load(kept, refresh=refresh)


def test_a_batch_killed_while_loading_leaves_no_page_claimed_and_its_re_run_holds_what_today_gives() -> None:
    """Pages 3, 4 and 5 never committed (their batch's load killed): the chunks written before that
    were given their mentions are unlinked at the sync's end (no chunk mentions a page no chunk is
    about), the three files stay pending, and the sync's re-run leaves the stores as a sync today."""
    order = list(range(len(TOWNS)))
    index, statuses = KilledAt("acme:doc/3.md#0000"), MemoryDocumentStatuses()
    _sync(order, expect=True, extractor=True, index=index, statuses=statuses)
    about = {m.entity_id for item in index.items.values() for m in item.mentions if m.role == "about"}
    claimed = {m.entity_id for item in index.items.values() for m in item.mentions if m.type == "page"}
    assert claimed == about and len(about) == len(TOWNS) - 3
    assert {statuses.get("acme", f"{n}.md").status for n in (3, 4, 5)} == {"pending"}  # type: ignore[union-attr]
    _sync(order, expect=True, extractor=True, index=index, statuses=statuses)
    today, today_statuses = _sync(order, expect=False, extractor=True)
    assert _mentions(index) == _mentions(today)
    for n in order:  # every file indexed, as today (the three re-sent, the others unchanged since)
        again, first = statuses.get("acme", f"{n}.md"), today_statuses.get("acme", f"{n}.md")
        assert again is not None and first is not None
        assert again.status in {"indexed", "unchanged"} and again.chunks == first.chunks


def test_a_context_indexed_before_the_sync_is_searched_for_each_page_s_back_links() -> None:
    """Only a context with no index before the sync leaves the search out: a chunk indexed earlier that
    names a page of this sync gains its mention from the search, as it always did."""
    index, statuses = MemoryIndex(), MemoryDocumentStatuses()
    _sync([0], expect=True, index=index, statuses=statuses)  # names Gamma Ridge, not indexed yet
    assert GAMMA_ID not in {m.entity_id for m in index.items["acme:doc/0.md#0000"].mentions}
    searched = len(index.searches)
    _sync(list(range(1, len(TOWNS))), expect=True, index=index, statuses=statuses)
    assert len(index.searches) > searched
    assert GAMMA_ID in {m.entity_id for m in index.items["acme:doc/0.md#0000"].mentions}


GAMMA_ID = entity_id_of("acme", TOWNS[GAMMA])
GAMMA_TEXT = f"The road runs to {TOWNS[GAMMA]}."


def _expected_gamma() -> ExpectedPages:
    expected = ExpectedPages("acme")
    expected.fresh = True
    expected.expect({"contexts/acme/2.md": TOWNS[GAMMA]})
    return expected


def test_a_page_a_chunk_named_without_its_mention_is_searched_for() -> None:
    """Named while the dictionary held its title for another entity, or past a chunk's mention cap:
    that chunk lacks the page's mention, so the page's back-link search is not left out."""
    linked = _expected_gamma()
    linked.linked("acme", [GAMMA_TEXT], [[]], NameIndex())
    other = _expected_gamma()
    held = NameIndex([NamedEntity("acme:other", TOWNS[GAMMA], "place")])
    assert other.linked("acme", [GAMMA_TEXT], [[]], held) == [[]]
    capped = _expected_gamma()
    own = [{"entity_id": f"f{n}", "name": f"f{n}", "type": FILE_ENTITY_TYPE} for n in range(LIMITS.mentions)]
    assert capped.linked("acme", [GAMMA_TEXT], [own], NameIndex()) == [own]
    for expected in (linked, other, capped):
        expected.planned("contexts/acme/2.md", new=True)
    assert linked.linked_ahead("contexts/acme/2.md", TOWNS[GAMMA])
    assert not other.linked_ahead("contexts/acme/2.md", TOWNS[GAMMA])
    assert not capped.linked_ahead("contexts/acme/2.md", TOWNS[GAMMA])
    assert not linked.linked_ahead("contexts/acme/9.md", TOWNS[GAMMA])  # not its page's first file
