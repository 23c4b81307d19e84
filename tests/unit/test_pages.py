"""Pages cut from one ranking, against in-memory stores: the first page writes nothing, the second freezes
what ranks after it once, later pages read (and extend) the frozen ranking; nothing overlaps or skips."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest
from fakes_cursors import InMemoryCursorStore
from fakes_store import BuildCountingStore, FixedEmbedder, InMemoryStore, capabilities_of
from retrieval_core import base64url
from retrieval_core.context import CallerContext
from retrieval_core.errors import BackendUnavailableError
from retrieval_core.models.item import Item
from retrieval_core.retrieval import modes
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.pager import Page, Pager
from retrieval_core.retrieval.paging import PageTokens, PagingConfig, fingerprints_from, id_fingerprints
from retrieval_core.retrieval.plans import AutoPlan, PreparedQuery, prepare
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.stages.cut import pages_apart

NOW = 1_000_000
QUERY = "ledger reconciliation quarter"
WORDS = QUERY.split()
MODES: dict[str, dict[str, Any]] = {
    "lexical": {"mode": "lexical", "text": QUERY},
    "vector": {"mode": "vector", "text": QUERY},
    "hybrid": {"mode": "hybrid", "text": QUERY},
}


def item(i: int, *, words: int | None = None, prefix: str = "p") -> Item:
    # Lexical scores 1..3 with ties only the id breaks; vector scores spread over a quarter circle.
    angle = (i % 31) * math.pi / 62
    return Item.model_validate(
        {
            "id": f"acme:{prefix}-{i:03d}",
            "context_id": "acme",
            "kind": "proposition",
            "text": " ".join(WORDS[: words or 1 + i % 3]) + f" note {i}",
            "embedding": [math.cos(angle), math.sin(angle)],
            "created_at": "2026-03-01T00:00:00Z",
        }
    )


ITEMS = [item(i) for i in range(60)]


class Paging:
    """One store, one cursor store and one pager, and the pages of requests against them."""

    def __init__(self, store: InMemoryStore | None = None, **config: int) -> None:
        self.store = store or InMemoryStore(ITEMS)
        self.cursors = InMemoryCursorStore()
        self.pager = Pager(
            capabilities=capabilities_of(self.store, embedder=FixedEmbedder({QUERY: [1.0, 0.0]}, 2)),
            retrieval=RetrievalConfig(),
            tokens=PageTokens(b"k" * 32),
            cursors=self.cursors,
            items=self.store,
            config=PagingConfig(**config),
            clock=lambda: NOW,
        )

    def page(self, body: dict[str, Any], token: str | None = None) -> Page:
        request = RetrieveRequest.model_validate(
            {"diversify": False} | body | ({"next_token": token} if token else {})
        )
        query = prepare(
            request,
            CallerContext("acme"),
            config=RetrievalConfig(),
            dimension=2,
            open_token=self.pager.open_token,
            plan_of=modes.MODES.specs[request.mode].plan,
        )
        return self.pager.page(query)

    def through(self, body: dict[str, Any]) -> list[Page]:
        pages = [self.page(body)]
        while pages[-1].next_token is not None:
            pages.append(self.page(body, pages[-1].next_token))
        return pages


def ids(*pages: Page) -> list[str]:
    return [h.id for page in pages for h in page.hits]


@pytest.mark.parametrize("mode", MODES)
def test_the_first_page_writes_nothing_and_the_second_freezes_once(mode: str) -> None:
    paging = Paging()
    body = MODES[mode] | {"top_k": 5}
    first = paging.page(body)
    assert first.next_token is not None and len(first.hits) == 5
    assert paging.cursors.calls == []
    second = paging.page(body, first.next_token)
    assert paging.cursors.calls == ["save"]
    (frozen, _), *_ = paging.cursors.rankings.values()
    assert frozen.base == 5 and fingerprints_from(frozen.shown) == id_fingerprints(ids(first))
    assert not set(ids(first)) & {e.id for e in frozen.entries}
    paging.store.calls.clear()
    third = paging.page(body, second.next_token)
    assert paging.cursors.calls == ["save", "load"]
    assert paging.store.calls == ["get_items"]  # no ranking: the frozen one is read
    assert [p.paging.offset for p in (first, second, third)] == [0, 5, 10]


@pytest.mark.parametrize("mode", MODES)
def test_pages_of_an_unchanged_index_equal_one_bigger_request(mode: str) -> None:
    paging = Paging()
    single = ids(paging.page(MODES[mode] | {"top_k": 30}))
    pages = paging.through(MODES[mode] | {"top_k": 10})
    assert ids(pages[1]) == single[10:20]
    every = ids(*pages)
    assert every[:30] == single
    assert len(every) == len(set(every))
    assert pages[-1].paging.end == "exhausted"
    if mode != "hybrid":  # hybrid ranks what its arms fused
        assert sorted(every) == sorted(i.id for i in ITEMS)


def test_an_item_written_between_the_first_and_second_page_opens_the_second() -> None:
    paging = Paging()
    body = MODES["lexical"] | {"top_k": 5}
    before = ids(paging.page(body | {"top_k": 10}))
    first = paging.page(body)
    # Every query word, and an id that sorts before the others on a tie: it ranks first now.
    paging.store.items["acme:a-000"] = item(0, words=3, prefix="a")
    second = paging.page(body, first.next_token)
    assert ids(first) == before[:5]
    assert ids(second) == ["acme:a-000", *before[5:9]]  # above the boundary: not skipped
    later = [second]
    while later[-1].next_token is not None:
        later.append(paging.page(body, later[-1].next_token))
    every = ids(first, *later)
    assert len(every) == len(set(every)) == len(ITEMS) + 1


def test_an_item_deleted_after_the_second_page_froze_it_is_gone_from_its_page() -> None:
    paging = Paging()
    body = MODES["lexical"] | {"top_k": 5}
    before = ids(paging.page(body | {"top_k": 15}))
    second = paging.page(body, paging.page(body).next_token)
    del paging.store.items[before[12]]
    third = paging.page(body, second.next_token)
    assert ids(third) == [i for i in before[10:15] if i != before[12]]
    assert third.paging.gone == 1 and third.paging.offset == 10


def test_an_extension_never_appends_what_the_first_page_showed() -> None:
    # A window of 1: the second page freezes only what it needs, so the third extends the ranking, and
    # the deeper ranking holds the first page's ids again (pages apart would ask the arm as deep as hybrid
    # does, and the second page would freeze it all).
    paging = Paging(window=1)
    body = MODES["lexical"] | {"top_k": 5, "pages_apart": False}
    pages = paging.through(body)
    assert paging.cursors.calls.count("save") > 1
    every = ids(*pages)
    assert every == ids(paging.page(body | {"top_k": 60}))
    assert len(every) == len(set(every)) == len(ITEMS)


def test_the_depth_cap_counts_positions_from_the_start_of_the_ranking() -> None:
    paging = Paging(max_depth=25)
    body = MODES["lexical"] | {"top_k": 10}
    pages = paging.through(body)
    (frozen, _), *_ = paging.cursors.rankings.values()
    assert (frozen.base, len(frozen.entries), frozen.complete) == (10, 15, True)
    assert [len(p.hits) for p in pages] == [10, 10, 5]
    assert [p.paging.end for p in pages] == [None, None, "depth_cap"]
    assert ids(*pages) == ids(paging.page(body | {"top_k": 30}))[:25]


def test_a_second_page_that_reaches_the_cap_writes_nothing() -> None:
    paging = Paging(max_depth=20)
    body = MODES["lexical"] | {"top_k": 10}
    second = paging.page(body, paging.page(body).next_token)
    assert (second.next_token, second.paging.end, len(second.hits)) == (None, "depth_cap", 10)
    assert paging.cursors.calls == []


def test_a_cursor_store_failure_fails_the_second_page_and_changes_nothing() -> None:
    paging = Paging()
    paging.cursors.failing = True
    body = MODES["lexical"] | {"top_k": 5}
    first = paging.page(body)  # never touches the cursor store
    assert first.next_token is not None and first.paging.end is None
    with pytest.raises(BackendUnavailableError):
        paging.page(body, first.next_token)
    assert paging.cursors.rankings == {}
    paging.cursors.failing = False
    assert ids(paging.page(body, first.next_token)) == ids(paging.page(body | {"top_k": 10}))[5:]


def test_a_hybrid_first_page_builds_only_the_hits_it_ranks() -> None:
    store = BuildCountingStore(ITEMS)
    paging = Paging(store)
    first = paging.page(MODES["hybrid"] | {"top_k": 3})
    assert len(set(store.candidates)) > 4
    assert first.next_token is not None
    assert store.built[:3] == ids(first) and len(store.built) == 4


def spy_on_rankings(pager: Pager, seen: list[datetime | None]) -> None:
    """Records the moment each ranking the pager makes reads the question at."""
    ranked = pager._rank

    def rank(query: PreparedQuery, *args: Any, **kwargs: Any) -> Any:
        assert isinstance(query.plan, AutoPlan)
        seen.append(query.plan.now)
        return ranked(query, *args, **kwargs)

    pager._rank = rank  # type: ignore[method-assign]


def test_an_auto_question_without_now_is_read_at_its_first_pages_moment_on_every_page() -> None:
    # The first page is asked on 31 May 2026 at 23:59:50 UTC; the next one 20 seconds later, in June.
    clock = [int(datetime(2026, 5, 31, 23, 59, 50, tzinfo=UTC).timestamp())]
    paging = Paging(InMemoryStore([item(i) for i in range(30)]))
    paging.pager._clock = lambda: clock[0]
    seen: list[datetime | None] = []
    spy_on_rankings(paging.pager, seen)
    body = {"mode": "auto", "text": f"{QUERY} last month", "top_k": 5}
    first = paging.page(body)
    clock[0] += 20
    second = paging.page(body, first.next_token)
    assert second.hits and not {h.id for h in first.hits} & {h.id for h in second.hits}
    asked = datetime(2026, 5, 31, 23, 59, 50, tzinfo=UTC)
    assert seen == [asked, asked]  # "last month" is April on both pages, not April then May
    # Later pages keep the moment: the second page's token carries it on (signed with the rest).
    assert second.next_token is not None
    fields = json.loads(base64url.decode(second.next_token.split(".")[1]))
    assert fields["n"] == int(asked.timestamp())


def test_an_auto_question_that_says_now_is_read_at_it() -> None:
    paging = Paging(InMemoryStore([item(i) for i in range(30)]))
    seen: list[datetime | None] = []
    spy_on_rankings(paging.pager, seen)
    body = {"mode": "auto", "text": QUERY, "top_k": 5, "now": "2026-03-01T12:00:00+01:00"}
    first = paging.page(body)
    paging.page(body, first.next_token)
    assert seen == [datetime(2026, 3, 1, 11, tzinfo=UTC)] * 2


def chunk(page: int, position: int) -> Item:
    """Chunk ``position`` of file ``page``: a page's chunks score alike (the same words), pages apart."""
    words = 3 - page % 3
    return item(page * 10 + position, words=words).model_copy(
        update={"id": f"acme:doc/page-{page:02d}.md#{position:04d}"}
    )


CHUNKS = [chunk(page, position) for page in range(8) for position in range(3)]


@pytest.mark.parametrize("mode", MODES)
def test_a_page_shows_one_chunk_of_a_file_until_every_ranked_file_has_shown_one(mode: str) -> None:
    paging = Paging(InMemoryStore(CHUNKS))
    files = [h.id.partition("#")[0] for h in paging.page(MODES[mode] | {"top_k": 24}).hits]
    pages = paging.through(MODES[mode] | {"top_k": 5})
    every = ids(*pages)
    assert [i.partition("#")[0] for i in every[:8]] == list(dict.fromkeys(files))  # 8 files, 8 firsts
    assert len(every) == len(set(every)) == len(CHUNKS)  # the other chunks follow, by paging
    assert pages[0].applied.pages_apart
    together = [
        h.id.partition("#")[0] for h in paging.page(MODES[mode] | {"top_k": 5, "pages_apart": False}).hits
    ]
    assert len(set(together)) < 5  # score order: a file's chunks side by side


def test_pages_apart_keeps_rank_order_among_firsts_and_among_the_rest() -> None:
    ranked = [chunk(0, 0), chunk(0, 1), chunk(1, 0), item(1), chunk(0, 2), chunk(1, 1)]
    assert [h.id for h in pages_apart(ranked)] == [
        "acme:doc/page-00.md#0000",
        "acme:doc/page-01.md#0000",
        "acme:p-001",
        "acme:doc/page-00.md#0001",
        "acme:doc/page-00.md#0002",
        "acme:doc/page-01.md#0001",
    ]


def test_relevance_never_rises_from_one_page_to_the_next_when_a_feature_does_not_descend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model that reads the vector arm's similarity (which does not descend down a fused ranking):
    each page starts no higher than the least the pages before showed (the token carries it)."""
    from retrieval_core.retrieval import pager as pager_module
    from retrieval_core.retrieval.relevance import RelevanceCalibration, RelevanceModel

    by_similarity = RelevanceModel(
        intercept=-6.0, score=0.0, log_position=0.0, similarity=8.0, operating_shift=0
    )
    monkeypatch.setattr(
        pager_module,
        "RELEVANCE",
        RelevanceCalibration(models={"hybrid": by_similarity}, fallback="hybrid", fitted_on="t"),
    )
    pages = Paging().through(MODES["hybrid"] | {"top_k": 5})
    shown = [
        (h, offset + i)
        for page in pages
        for i, h in enumerate(page.hits, start=1)
        for offset in [page.paging.offset]
    ]
    values = [h.relevance for h, _ in shown]
    assert len(pages) > 3 and values == sorted(values, reverse=True)  # type: ignore[type-var]
    own = [pager_module.relevance(by_similarity, h, position) for h, position in shown]
    # The floor carried across a page boundary decided some page's first value (without it, it rose).
    firsts = [len(ids(*pages[:n])) for n in range(1, len(pages))]
    assert any(own[i] > values[i - 1] for i in firsts)
