"""The multi-hop stage on a small graph whose scores are worked out by hand, and auto's multi-hop reading.

The graph: a library's page (K) names its architect (A); the architect's page names a birthplace. The
question names only the library, so text search ranks K first and a distractor (D) second; the stage
follows K's link to A's page and ranks it by the question among the pages K links to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from retrieval_core.context import CallerContext
from retrieval_core.models.hits import Candidate, Hit, MentionView, Signal
from retrieval_core.models.page_titles import SINGLE_NAME_TYPE
from retrieval_core.models.vocabulary import Kind, Status
from retrieval_core.ports import (
    ENTITY_ARM,
    RESIDUAL_ARM,
    Ahead,
    ArmResults,
    Capabilities,
    Neighbourhood,
    Residual,
    SearchFilters,
)
from retrieval_core.retrieval.auto import walk_ahead
from retrieval_core.retrieval.config import FusionConfig, MultiHopConfig, RetrievalConfig
from retrieval_core.retrieval.fusion import built
from retrieval_core.retrieval.modes import MODES
from retrieval_core.retrieval.paging import PagePosition
from retrieval_core.retrieval.plans import FusedPlan, prepare
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.stages.base import Job, Ranked
from retrieval_core.retrieval.stages.fusion import fuse
from retrieval_core.retrieval.stages.multihop import (
    MULTIHOP_ARM,
    QUESTION,
    MultiHop,
    first_ask,
    personalized_pagerank,
    walk_ask,
)
from retrieval_core.understanding.multihop import (
    asks_through,
    asks_two,
    compares,
    compares_through,
    reads_as_multihop,
)

K, A, D, X = "acme:doc/k.md#0000", "acme:doc/a.md#0000", "acme:doc/d.md#0000", "acme:doc/x.md#0000"
PAGE_K, PAGE_A = "acme:entity/kelmscott-library", "acme:entity/ada-smith"


def page(entity_id: str, name: str, role: str | None = None) -> MentionView:
    return MentionView(entity_id=entity_id, name=name, type="page", role=role)


K2 = "acme:doc/k.md#0001"
"""K's page's second chunk: about the library too, and naming nothing else."""
HUB_NAMERS = [f"acme:doc/n{i}.md#0000" for i in range(7)]
"""Passages that name Ada Smith besides X: with them A's page is named by eight fetched passages."""
MENTIONS = {
    K: [page(PAGE_K, "Kelmscott Library", "about"), page(PAGE_A, "Ada Smith")],
    K2: [page(PAGE_K, "Kelmscott Library", "about")],
    A: [page(PAGE_A, "Ada Smith", "about")],
    D: [],
    X: [page(PAGE_A, "Ada Smith")],
    **{namer: [page(PAGE_A, "Ada Smith")] for namer in HUB_NAMERS},
}
RIVER, FALLS = "acme:doc/river.md#0000", "acme:doc/falls.md#0000"
"""A river's page and a waterfall's: both write "Zimbabwe", which no page is about."""
ZIMBABWE = "acme:entity/zimbabwe"
MENTIONS[RIVER] = [
    page("acme:entity/bubye-river", "Bubye River", "about"),
    MentionView(entity_id=ZIMBABWE, name="Zimbabwe", type=SINGLE_NAME_TYPE),
]
MENTIONS[FALLS] = [MentionView(entity_id=ZIMBABWE, name="Zimbabwe", type=SINGLE_NAME_TYPE)]


def hit(hit_id: str, score: float, signals: dict[str, Signal] | None = None, **extra: object) -> Hit:
    return Hit(
        id=hit_id,
        kind=Kind.DOCUMENT,
        text=hit_id,
        score=score,
        status=Status.ACTIVE,
        created_at="2026-01-01T00:00:00Z",
        mentions=MENTIONS[hit_id],
        signals=signals or {},
        **extra,
    )


def candidate(hit_id: str, score: float) -> Candidate:
    """As a text arm answers: the page's stored fields, its hit made only when it is ranked."""
    stored = hit(hit_id, score).model_dump(include={"id", "kind", "text", "status", "created_at", "mentions"})
    return Candidate(hit_id, Kind.DOCUMENT, score, {**stored, "context_id": "acme"})


class LinkedSearch:
    """The neighbourhood of the followed pages: A (sharing no word with the question) and X (naming A),
    and how many of the context's passages name each page (``named_by``)."""

    def __init__(self, *more: Candidate, named_by: dict[str, int] | None = None) -> None:
        self.asked: list[SearchFilters] = []
        self.more = list(more)
        self.named_by = named_by if named_by is not None else {PAGE_A: 3, PAGE_K: 2}

    def neighbourhood(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        residual: Residual | None = None,
    ) -> Neighbourhood:
        self.asked.append(filters)
        arms = {
            "lexical": [candidate(X, 4.0), *self.more],
            "vector": [candidate(A, 0.72), candidate(X, 0.45)],
        }
        counts = {e: n for e, n in self.named_by.items() if e in filters.entities}
        return Neighbourhood(arms, counts)


def refuse_tokens(token: str, context_id: str, fingerprint: str) -> PagePosition:
    raise AssertionError("no page token is sent here")


def job(**fields: object) -> Job:
    request = RetrieveRequest.model_validate(
        {"mode": "hybrid", "text": "where was its architect born"} | fields
    )
    query = prepare(
        request,
        CallerContext("acme"),
        config=RetrievalConfig(),
        dimension=None,
        open_token=refuse_tokens,
        plan_of=MODES.specs[request.mode].plan,
    )
    filters = SearchFilters(size=10)
    return Job(query, None, filters, False, query.mode, query.plan, query.context_id, 10)  # type: ignore[arg-type]


TEXT_RANKING = Ranked(
    [
        hit(K, 2.0, {"lexical": Signal(rank=1, score=10.0), "vector": Signal(rank=1, score=0.9)}),
        hit(D, 1.0, {"lexical": Signal(rank=2, score=5.0), "vector": Signal(rank=2, score=0.8)}),
    ],
    ("lexical", "vector"),
    text="where was its architect born",
    vector=[1.0, 0.0],
)
CONFIG = MultiHopConfig(
    seed_hits=2,
    weight=8.0,
    about=1.0,
    mention=0.5,
    decay=0.8,
    lexical_share=0.5,
    relative=0.0,
    damping=0.5,
    iterations=2,
)


def test_a_bridge_page_sharing_no_word_ranks_second_with_its_path() -> None:
    search = LinkedSearch()
    step = MultiHop(Capabilities(search=search), CONFIG)(job(hops=2), TEXT_RANKING)
    scores = {h.id: h.score for h in step.value.hits}
    # Seeds: K weighs 2/2 = 1 (rank 0), D 1/2 x 0.8 = 0.4 and names nothing. K's walk (damping 0.5):
    # K hands its page (named by 2: 1/2) and A's page (named by 3: 1/3) 0.6 and 0.4 of its mass; A's
    # page hands A (about: 1) 1/2, X and K (mentions: 0.5) 1/4 each. Two steps: A 0.5 x 0.5 x 0.4 x 0.5
    # = 0.05, X 0.025, over one step's 0.25: walked 0.2 and 0.1.
    # A: 0.2 x similarity (0.5 x 0/10 + 0.5 x 0.72/0.9 = 0.4) = 0.08, scored 8 x 0.08 = 0.64.
    # X: 0.1 x (0.5 x 4/10 + 0.5 x 0.45/0.9 = 0.45) = 0.045, scored 0.36.
    # K keeps 1.0 (its own walk never comes back to it as a hop), D keeps 0.5.
    assert [h.id for h in step.value.hits] == [K, A, D, X]
    assert scores == pytest.approx({K: 1.0, A: 0.64, D: 0.5, X: 0.36})
    bridge = step.value.hits[1]
    assert bridge.found_by == [MULTIHOP_ARM]
    assert bridge.path is not None and [(p.from_id, p.entity, p.link) for p in bridge.path] == [
        (K, "Ada Smith", "about")
    ]
    assert step.value.hits[0].path is None
    assert search.asked[0].entities == (PAGE_K, PAGE_A)  # K's two pages, in the query
    assert step.notes["multihop"] == (
        "hops=2 seeds=2 named=0 entities=2 hubs=0 fetched=3 linked=2 second_ends=0 iterations=2 round_trips=1"
    )


def ahead_of(ranking: Ranked, entities: tuple[str, ...], found: Neighbourhood) -> Ranked:
    """``ranking`` with a walk's first fetch made ahead for ``entities`` (the walk's own ask otherwise)."""
    ask = walk_ask(job(hops=2), ranking.text, ranking.vector or [], entities, CONFIG)
    return replace(ranking, ahead=Ahead(ask, found))


def test_a_first_fetch_made_ahead_for_the_same_entities_is_used_and_gives_the_same_ranking() -> None:
    walked = MultiHop(Capabilities(search=LinkedSearch()), CONFIG)(job(hops=2), TEXT_RANKING)
    fetched = LinkedSearch().neighbourhood("acme", "", [], SearchFilters(entities=(PAGE_K, PAGE_A)), 30)
    search = LinkedSearch()
    # The walk asks for K's pages as K names them; ahead of it they were asked in the other order.
    ahead = ahead_of(TEXT_RANKING, (PAGE_A, PAGE_K), fetched)
    step = MultiHop(Capabilities(search=search), CONFIG)(job(hops=2), ahead)
    assert search.asked == []  # no round trip of its own
    assert step.value.hits == walked.value.hits
    assert step.notes["multihop"].endswith("linked=2 second_ends=0 iterations=2 ahead=used round_trips=0")


def test_a_first_fetch_made_ahead_for_other_entities_is_not_used_the_walk_fetches_its_own() -> None:
    walked = MultiHop(Capabilities(search=LinkedSearch()), CONFIG)(job(hops=2), TEXT_RANKING)
    search = LinkedSearch()
    wrong = LinkedSearch().neighbourhood("acme", "", [], SearchFilters(entities=(PAGE_K,)), 30)
    step = MultiHop(Capabilities(search=search), CONFIG)(
        job(hops=2), ahead_of(TEXT_RANKING, (PAGE_K,), wrong)
    )
    assert [f.entities for f in search.asked] == [(PAGE_K, PAGE_A)]
    assert step.value.hits == walked.value.hits
    assert step.notes["multihop"].endswith("ahead=missed round_trips=1")


def test_the_walk_s_first_ask_is_what_auto_asks_ahead() -> None:
    ask = first_ask(job(hops=2), TEXT_RANKING.hits, {}, TEXT_RANKING.text, [1.0, 0.0], CONFIG)
    search = LinkedSearch()
    MultiHop(Capabilities(search=search), CONFIG)(job(hops=2), TEXT_RANKING)
    assert ask is not None and ask.filters == search.asked[0] and ask.depth == CONFIG.candidates
    assert first_ask(job(hops=2), [hit(D, 1.0)], {}, "x", [1.0, 0.0], CONFIG) is None  # nothing to follow


def test_relative_similarity_gives_an_entity_s_likeliest_passage_its_full_weight() -> None:
    config = CONFIG.model_copy(update={"relative": 1.0, "weight": 4.0})
    step = MultiHop(Capabilities(search=LinkedSearch()), config)(job(hops=2), TEXT_RANKING)
    scores = {h.id: h.score for h in step.value.hits}
    # Both came through A's page, A (similarity 0.4) and X (0.45) each measured against X's 0.45.
    # A: 0.2 x 0.4 / 0.45, scored 4 x 0.178 = 0.711; X: 0.1 x 1, scored 0.4.
    assert scores == pytest.approx({K: 1.0, A: 4 * 0.2 * 0.4 / 0.45, D: 0.5, X: 0.4})
    assert [h.id for h in step.value.hits] == [K, A, D, X]


def test_the_page_the_question_names_seeds_the_walk_though_no_hit_names_it() -> None:
    search = LinkedSearch()
    alone = Ranked([TEXT_RANKING.hits[1]], TEXT_RANKING.arms, TEXT_RANKING.text, [1.0, 0.0], {PAGE_A: 1.0})
    step = MultiHop(Capabilities(search=search), CONFIG)(job(hops=2), alone)
    assert search.asked[0].entities == (PAGE_A,)
    # The walk restarts on A's page: it hands A 1/2 and X 1/4 (one more passage names it, unseen: 1/4
    # leaves). Two steps: A 0.5 x 0.5 x 0.5 = 0.125 over 0.25: walked 0.5; its similarity against D's
    # arms 0.5 x 0.72 / 0.8 = 0.45: scored 8 x 0.5 x 0.45 = 1.8, above D, first at that score.
    assert [h.id for h in step.value.hits] == [D, A, X]
    assert step.value.hits[1].score == pytest.approx(1.8) and step.value.hits[0].score == pytest.approx(1.8)
    path = step.value.hits[1].path
    assert path is not None and [(p.from_id, p.entity, p.link) for p in path] == [
        (QUESTION, "Ada Smith", "about")
    ]
    assert "named=1" in step.notes["multihop"]


def test_one_hop_changes_nothing_and_searches_nothing() -> None:
    search = LinkedSearch()
    step = MultiHop(Capabilities(search=search), CONFIG)(job(hops=1), TEXT_RANKING)
    assert step.value is TEXT_RANKING and search.asked == []


def hops_of(job: Job) -> int:
    assert isinstance(job.plan, FusedPlan)
    return job.plan.hops


def test_hops_are_clamped_and_auto_reads_the_question() -> None:
    assert hops_of(job(hops=9)) == 3
    assert hops_of(job()) == 1  # hybrid reads nothing into the question
    question = "Where was the architect of the Kelmscott Library born?"
    assert hops_of(job(mode="auto", text=question)) == 2
    assert hops_of(job(mode="auto", text="kelmscott library opening hours")) == 1
    assert hops_of(job(mode="auto", text=question, infer=False)) == 1


@pytest.mark.parametrize(
    "question",
    [
        "Where was the architect of the Kelmscott Library born?",
        "Who was born first, Ada Smith or Tom Jones?",
        "How many stores are in the state where Hello Love's performer died?",
        "What is the capital of the country that makes the Fiat 500?",
    ],
)
def test_multi_hop_questions_read_as_such(question: str) -> None:
    assert reads_as_multihop(question)


@pytest.mark.parametrize(
    "question", ["payments team on-call runbook", "Who leads payments?", "ledger reconciliation design"]
)
def test_single_hop_questions_do_not(question: str) -> None:
    assert not reads_as_multihop(question)


def test_hops_are_refused_for_modes_without_text_arms() -> None:
    with pytest.raises(ValueError, match="hops is for hybrid and auto"):
        RetrieveRequest.model_validate({"mode": "lexical", "text": "x", "hops": 2})


def test_a_ranking_without_page_links_is_returned_as_it_was_with_no_search() -> None:
    search = LinkedSearch()
    plain = Ranked([hit(D, 1.0)], ("lexical", "vector"), text="x", vector=[1.0, 0.0])
    step = MultiHop(Capabilities(search=search), CONFIG)(job(hops=2), plain)
    assert step.value is plain and search.asked == []
    assert step.notes["multihop"].endswith("round_trips=0")


def test_a_page_hundreds_of_passages_name_is_a_hub_that_spreads_almost_nothing() -> None:
    hub = LinkedSearch(named_by={PAGE_A: 300, PAGE_K: 2})
    step = MultiHop(Capabilities(search=hub), CONFIG)(job(hops=2), TEXT_RANKING)
    scores = {h.id: h.score for h in step.value.hits}
    # K hands A's page (1/300) / (1/2 + 1/300) = 0.0066 of its mass, and A's page hands A 1 / 150.5
    # (297 unseen passages name it at 0.5 each): A walks 0.5 x 0.5 x 0.0066 x 0.0066 / 0.25 = 4.4e-5.
    assert scores[A] == pytest.approx(8 * 0.4 * 0.5 * 0.5 * (1 / 300) / (1 / 2 + 1 / 300) / 150.5 / 0.25)
    assert [h.id for h in step.value.hits][:3] == [K, D, A]  # below the text ranking's second hit
    assert "hubs=1" in step.notes["multihop"]


def test_a_seed_s_own_page_s_other_chunk_is_never_a_hop() -> None:
    sibling = candidate(K2, 5.0)
    allowed = CONFIG.model_copy(update={"siblings": True})
    walked = MultiHop(Capabilities(search=LinkedSearch(sibling)), allowed)(job(hops=2), TEXT_RANKING)
    assert K2 in [h.id for h in walked.value.hits]  # K names its own page: K2 is about it
    kept_apart = MultiHop(Capabilities(search=LinkedSearch(sibling)), CONFIG)(job(hops=2), TEXT_RANKING)
    assert K2 not in [h.id for h in kept_apart.value.hits]


def test_auto_walks_only_when_its_question_names_an_entity_the_context_knows() -> None:
    search = LinkedSearch()
    auto = job(mode="auto", hops=2)
    unnamed = MultiHop(Capabilities(search=search), CONFIG)(auto, TEXT_RANKING)
    assert unnamed.value is TEXT_RANKING and search.asked == []
    assert unnamed.notes["multihop"] == "skipped: the question names nothing the context knows"
    named = replace(TEXT_RANKING, arms=(*TEXT_RANKING.arms, ENTITY_ARM))
    walked = MultiHop(Capabilities(search=search), CONFIG)(auto, named)
    assert A in [h.id for h in walked.value.hits] and len(search.asked) == 1


def test_the_text_ranking_s_first_hit_stays_first() -> None:
    strong = CONFIG.model_copy(update={"weight": 16.0, "keep_first": False})
    # A scores 16 x 0.08 = 1.28, above K's 1.0.
    moved = MultiHop(Capabilities(search=LinkedSearch()), strong)(job(hops=2), TEXT_RANKING)
    assert [h.id for h in moved.value.hits][:2] == [A, K]
    kept = MultiHop(Capabilities(search=LinkedSearch()), strong.model_copy(update={"keep_first": True}))
    hits = kept(job(hops=2), TEXT_RANKING).value.hits
    assert [h.id for h in hits][:2] == [K, A]
    assert hits[0].score == pytest.approx(1.28) and hits[1].score == pytest.approx(1.28)


def test_the_walk_restarts_on_its_seeds_and_goes_no_further_than_its_steps() -> None:
    # seed -> entity -> passage, a chain: one step reaches the entity only, two the passage.
    chain = {"seed": {"entity": 1.0}, "entity": {"passage": 1.0}}
    one = personalized_pagerank(chain, {"seed": 1.0}, damping=0.5, iterations=1)
    assert one == pytest.approx({"seed": 0.5, "entity": 0.5})
    two = personalized_pagerank(chain, {"seed": 2.0}, damping=0.5, iterations=2)  # weights normalised
    assert two == pytest.approx({"seed": 0.5, "entity": 0.25, "passage": 0.25})
    # The passage leads nowhere: its mass leaves the graph, the seed's restart stays.
    three = personalized_pagerank(chain, {"seed": 1.0}, damping=0.5, iterations=3)
    assert three == pytest.approx({"seed": 0.5, "entity": 0.25, "passage": 0.125})
    for damping in (0.2, 0.5, 0.9):
        walked = personalized_pagerank(chain, {"seed": 1.0}, damping=damping, iterations=6)
        assert walked["seed"] >= 1 - damping  # the restart keeps mass on the seed
    assert personalized_pagerank(chain, {}, damping=0.5, iterations=3) == {}


def test_a_hub_spreads_almost_nothing_to_each_passage_naming_it() -> None:
    # The seed names a specific page (named by 2 passages) and a hub (named by 200): each passage
    # naming the hub gets a hundredth of what the specific page's passages get.
    graph: dict[str, dict[str, float]] = {
        "seed": {"specific": 0.5, "hub": 0.5},
        "specific": {"s0": 0.5, "s1": 0.5},
        "hub": {f"h{i}": 1 / 200 for i in range(200)},
    }
    mass = personalized_pagerank(graph, {"seed": 1.0}, damping=0.5, iterations=2)
    assert mass["s0"] == pytest.approx(0.0625)
    assert mass["h0"] == pytest.approx(0.0625 / 100)


COMPARED = [f"acme:doc/c{i}.md#0000" for i in range(5)]
"""Text hits naming nothing, ranked between K and A's page in the comparison below."""
MENTIONS.update({c: [] for c in COMPARED})


def test_a_comparison_keeps_every_named_thing_s_page_in_the_top_five() -> None:
    hits = [hit(K, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED)), hit(A, 0.5)]
    named = {PAGE_K: 1.0, PAGE_A: 1.0}
    no_walk = CONFIG.model_copy(update={"weight": 0.0})  # the walk adds nothing: the order is the text's
    question = "Which was founded first, the Kelmscott Library or Ada Smith?"
    compared = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], named)
    ranked = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), compared).value.hits
    assert [h.id for h in ranked[:7]] == [K, *COMPARED[:3], A, COMPARED[3], COMPARED[4]]
    assert ranked[4].score == pytest.approx(0.6)  # the place it took, at that place's score
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    asked = replace(compared, text="When did the Kelmscott Library and Ada Smith open?")
    plain = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), asked).value.hits
    assert [h.id for h in plain[:7]].index(A) == 6  # neither a comparison nor a chain: the text's order


def test_a_question_through_a_named_thing_keeps_its_page_s_link_in_the_top_five() -> None:
    # "the architect of the Kelmscott Library": K (named, ranked first) links to A's page, ranked
    # seventh by text; A takes the fifth place. Asked without the chain, the text's order stays.
    hits = [hit(K, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED)), hit(A, 0.5)]
    no_walk = CONFIG.model_copy(update={"weight": 0.0})
    question = "Where was the architect of the Kelmscott Library born?"
    chain = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], {PAGE_K: 1.0})
    ranked = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), chain).value.hits
    assert [h.id for h in ranked[:6]] == [K, *COMPARED[:3], A, COMPARED[3]]
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    keywords = replace(chain, text="Kelmscott Library architect birthplace")
    plain = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), keywords).value.hits
    assert [h.id for h in plain].index(A) == 6


def test_a_hit_a_compared_page_displaces_ranks_below_the_pages_at_most_at_their_score() -> None:
    # K (a named page) already fifth: A takes the fourth place, the hit there ranks after K.
    hits = [*(hit(c, 2.0 - i / 10) for i, c in enumerate(COMPARED[:4])), hit(K, 1.5), hit(COMPARED[4], 1.4)]
    hits.append(hit(A, 0.5))
    question = "Which was founded first, the Kelmscott Library or Ada Smith?"
    compared = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], {PAGE_K: 1.0, PAGE_A: 1.0})
    no_walk = CONFIG.model_copy(update={"weight": 0.0})
    ranked = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), compared).value.hits
    assert [h.id for h in ranked[:7]] == [*COMPARED[:3], A, K, COMPARED[3], COMPARED[4]]
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    assert ranked[5].score == pytest.approx(ranked[4].score)  # at most at K's


B, E = "acme:doc/b.md#0000", "acme:doc/e.md#0000"
PAGE_B, PAGE_E = "acme:entity/bodley-library", "acme:entity/eve-jones"
MENTIONS.update(
    {
        B: [page(PAGE_B, "Bodley Library", "about"), page(PAGE_E, "Eve Jones")],
        E: [page(PAGE_E, "Eve Jones", "about")],
    }
)


def test_a_bridge_comparison_keeps_both_chains_in_the_top_five() -> None:
    # Which library's architect was born first? Both libraries' pages (K, B), and each one's linked
    # page (A: Kelmscott's architect, E: Bodley's), though text search ranked all four below C0-C3.
    hits = [
        hit(COMPARED[0], 2.0),
        *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED[1:])),
        hit(K, 0.9),
        hit(B, 0.8),
        hit(E, 0.7),
        hit(D, 0.6),
        hit(A, 0.5),
    ]
    named = {PAGE_K: 1.0, PAGE_B: 1.0}
    no_walk = CONFIG.model_copy(update={"weight": 0.0})
    question = "Which library has the architect born first, the Kelmscott Library or the Bodley Library?"
    compared = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], named)
    ranked = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), compared).value.hits
    assert [h.id for h in ranked[:5]] == [COMPARED[0], K, B, E, A]  # the first hit stays first
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)
    plain = replace(compared, text="Which was founded first, the Kelmscott Library or the Bodley Library?")
    pages_only = MultiHop(Capabilities(search=LinkedSearch()), no_walk)(job(hops=2), plain).value.hits
    assert {h.id for h in pages_only[:5]} == {COMPARED[0], COMPARED[1], COMPARED[2], K, B}


def test_the_walk_follows_the_links_of_a_named_page_ranked_below_the_seeds() -> None:
    # K, the page the question names, ranks below five seeds that name nothing: its link to A's page
    # is followed all the same (the first chain of a bridge comparison leaves from it).
    hits = [*(hit(c, 2.0 - i / 10) for i, c in enumerate(COMPARED)), hit(K, 0.5)]
    search = LinkedSearch()
    seeds_only = CONFIG.model_copy(update={"seed_hits": 5})
    named = Ranked(hits, TEXT_RANKING.arms, "Where was the Kelmscott Library's architect born?", [1.0, 0.0])
    MultiHop(Capabilities(search=search), seeds_only)(job(hops=2), replace(named, named={PAGE_K: 1.0}))
    assert search.asked[0].entities == (PAGE_K, PAGE_A)


@pytest.mark.parametrize(
    ("question", "through"),
    [
        ("Which film has the director born first, Maurice or Hello Love?", True),
        ("Which film whose director is younger, Maurice or Hello Love?", True),
        ("Are the directors of Maurice and Hello Love of the same nationality?", True),
        ("Who was born first, Ada Smith or Tom Jones?", False),
        ("Are Medici and Senet both board games?", False),
        ("Which plant is larger, the Pterocarya or the Cotula?", False),
    ],
)
def test_a_comparison_through_a_role_of_the_named_things_is_a_bridge_comparison(
    question: str, through: bool
) -> None:
    assert compares(question)
    assert compares_through(question) is through
    assert not compares("Where was the architect of the Kelmscott Library born?")


def test_a_one_word_name_no_page_is_about_bridges_two_passages_by_its_specificity() -> None:
    class ByName(LinkedSearch):
        def neighbourhood(
            self,
            context_id: str,
            text: str,
            vector: Sequence[float],
            filters: SearchFilters,
            depth: int,
            residual: Residual | None = None,
        ) -> Neighbourhood:
            self.asked.append(filters)
            arms = {"lexical": [candidate(FALLS, 3.0)], "vector": [candidate(FALLS, 0.6)]}
            return Neighbourhood(arms, {e: n for e, n in self.named_by.items() if e in filters.entities})

    question = "the waterfall in the country where the Bubye River is found"
    ranked = Ranked(
        [
            hit(RIVER, 2.0, {"lexical": Signal(rank=1, score=10.0), "vector": Signal(rank=1, score=0.9)}),
            hit(D, 1.0, {"lexical": Signal(rank=2, score=5.0), "vector": Signal(rank=2, score=0.8)}),
        ],
        ("lexical", "vector"),
        text=question,
        vector=[1.0, 0.0],
        named={"acme:entity/bubye-river": 1.0},
    )
    named_by = {ZIMBABWE: 2, "acme:entity/bubye-river": 1}
    step = MultiHop(Capabilities(search=ByName(named_by=named_by)), CONFIG)(
        job(hops=2, text=question), ranked
    )
    falls = next(h for h in step.value.hits if h.id == FALLS)
    assert falls.path is not None and [(p.from_id, p.entity, p.link) for p in falls.path] == [
        (RIVER, "Zimbabwe", "mentions")
    ]
    assert [h.id for h in step.value.hits] == [RIVER, FALLS, D]
    # Written by 200 passages, the same name is a hub: the waterfall stays below the text's hits.
    hub = {**named_by, ZIMBABWE: 200}
    step = MultiHop(Capabilities(search=ByName(named_by=hub)), CONFIG)(job(hops=2, text=question), ranked)
    assert [h.id for h in step.value.hits] == [RIVER, D, FALLS]
    # A one-word name of a hit the question does not name is not followed: only pages are.
    search = ByName(named_by=named_by)
    MultiHop(Capabilities(search=search), CONFIG)(job(hops=2, text=question), replace(ranked, named={}))
    assert ZIMBABWE not in search.asked[0].entities


def test_a_named_page_linking_no_ranked_page_keeps_a_passage_writing_its_one_word_name() -> None:
    # "the country where the Bubye River is found": the river's page (named, first) links no page,
    # but writes "Zimbabwe", which the waterfall's passage, seventh by text, writes too: it takes the
    # fifth place. Asked without the chain, the text's order stays.
    bubye = "acme:entity/bubye-river"
    hits = [hit(RIVER, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED)), hit(FALLS, 0.5)]
    no_walk = CONFIG.model_copy(update={"weight": 0.0})
    question = "Which waterfall is in the country where the Bubye River is found?"
    chain = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], {bubye: 1.0})
    search = LinkedSearch(named_by={ZIMBABWE: 2, bubye: 1})
    ranked = MultiHop(Capabilities(search=search), no_walk)(job(hops=2), chain).value.hits
    assert [h.id for h in ranked[:6]] == [RIVER, *COMPARED[:3], FALLS, COMPARED[3]]
    keywords = replace(chain, text="Bubye River country waterfall")
    plain = MultiHop(Capabilities(search=search), no_walk)(job(hops=2), keywords).value.hits
    assert [h.id for h in plain].index(FALLS) == 6


def test_auto_s_fetch_ahead_asks_what_the_walk_asks_from_hybrid_s_ranking() -> None:
    # Hybrid ranks D and the falls (the two seed hits, naming no page) above K, the page the question
    # names: the ask follows the pages K links to (wherever K ranks); only those hits are built.
    lexical = [candidate(D, 3.0), candidate(FALLS, 2.0), candidate(K, 1.0), candidate(A, 0.5)]
    vector = [candidate(D, 0.9), candidate(FALLS, 0.8), candidate(K, 0.7), candidate(A, 0.6)]
    base = ArmResults({"lexical": lexical, "vector": vector})
    named = {PAGE_K: 1.0}
    ask = walk_ahead(job(hops=2), "q", [1.0, 0.0], 100, CONFIG, base, {}, named)
    assert ask is not None and ask.filters.entities == (PAGE_K, PAGE_A)
    every = built(fuse(base.arms, FusionConfig()))  # every ranked hit built: the same ask
    assert ask == first_ask(job(hops=2), every, named, "q", [1.0, 0.0], CONFIG)


class SecondEnds(LinkedSearch):
    """A neighbourhood whose text arms find nothing, and whose residual arm (when asked) finds the
    waterfall at k-NN score 0.8: the question without "Bubye River" is close to it."""

    def __init__(self, named_by: dict[str, int]) -> None:
        super().__init__(named_by=named_by)
        self.residuals: list[Residual | None] = []

    def neighbourhood(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        residual: Residual | None = None,
    ) -> Neighbourhood:
        self.asked.append(filters)
        self.residuals.append(residual)
        arms = {"lexical": [], "vector": [], **({RESIDUAL_ARM: [candidate(FALLS, 0.8)]} if residual else {})}
        return Neighbourhood(arms, {e: n for e, n in self.named_by.items() if e in filters.entities})


class Recording:
    """An embedder that records what it embeds."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    @property
    def dimension(self) -> int:
        return 2

    @property
    def name(self) -> str:
        return "recording"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[0.0, 1.0] for _ in texts]


def test_a_chain_s_second_end_is_asked_for_without_the_named_thing_s_name() -> None:
    # "Which waterfall is in the country where the Bubye River is found?": the river's page (named,
    # first) writes "Zimbabwe"; the waterfall's passage writes it too but no text arm found it. Asked
    # "Which waterfall is in the country where the is found?" among the passages naming what the
    # river's page names, it scores 0.8: 0.2 over the floor, x 8 x the fifth hit's 0.6 = 0.96, second.
    bubye = "acme:entity/bubye-river"
    hits = [hit(RIVER, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED))]
    config = CONFIG.model_copy(update={"weight": 0.0, "second_end_weight": 8.0, "second_end_floor": 0.6})
    question = "Which waterfall is in the country where the Bubye River is found?"
    chain = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], {bubye: 1.0})
    search, embedder = SecondEnds({ZIMBABWE: 2, bubye: 1}), Recording()
    step = MultiHop(Capabilities(search=search, embedder=embedder), config)(job(hops=2), chain)
    assert embedder.texts == ["Which waterfall is in the country where the is found?"]
    assert [r.entities if r else None for r in search.residuals] == [(ZIMBABWE,)]
    ranked = step.value.hits
    assert [h.id for h in ranked[:3]] == [RIVER, FALLS, COMPARED[0]]
    assert ranked[1].score == pytest.approx(8 * 0.6 * 0.2)
    assert ranked[1].path is not None and [(p.from_id, p.entity) for p in ranked[1].path] == [
        (RIVER, "Zimbabwe")
    ]
    assert "second_ends=1" in step.notes["multihop"]
    # Not asked: without its weight, for a comparison, for two questions in one, or when the named
    # page is not in the top 5.
    off = config.model_copy(update={"second_end_weight": 0.0})
    compared = replace(chain, text="Which is longer, the Bubye River or the Zambezi?")
    two = replace(chain, text="Where does the Bubye River rise, and which waterfall is in its country?")
    sunk = replace(chain, hits=[*hits[1:], hits[0]])
    for how, ranking in ((off, chain), (config, compared), (config, two), (config, sunk)):
        search = SecondEnds({ZIMBABWE: 2, bubye: 1})
        hits_after = MultiHop(Capabilities(search=search, embedder=Recording()), how)(job(hops=2), ranking)
        assert search.residuals == [None]
        assert FALLS not in [h.id for h in hits_after.value.hits]


@pytest.mark.parametrize(
    ("question", "two"),
    [
        ("Which sphinx-quickstart option keeps source and build apart, and what does make mode do?", True),
        ("Which setting shows todo entries; and which event drops a removed document's todos?", True),
        ("What is the name of the waterfall in the country where the Bubye River is found?", False),
        ("Which publisher, founded in 2005 and based in Portland, printed her first novel?", False),
    ],
)
def test_two_questions_in_one_are_read_apart_from_a_chain(question: str, two: bool) -> None:
    assert asks_two(question) is two


def test_a_first_fetch_made_ahead_asks_the_second_end_too_and_the_walk_uses_it() -> None:
    # auto asks the walk's first fetch ahead from hybrid's ranking: with the embedder, that ask carries
    # the question without the named page's title, so the walk asking the same uses it (no round trip
    # and no second embedding) and lifts the waterfall as it would have.
    bubye = "acme:entity/bubye-river"
    hits = [hit(RIVER, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED))]
    config = CONFIG.model_copy(update={"weight": 0.0, "second_end_weight": 8.0, "second_end_floor": 0.6})
    question = "Which waterfall is in the country where the Bubye River is found?"
    early = Recording()
    ask = first_ask(job(hops=2), hits, {bubye: 1.0}, question, [1.0, 0.0], config, early)
    assert ask is not None and ask.residual is not None
    assert ask.residual.text == "Which waterfall is in the country where the is found?"
    assert early.texts == [ask.residual.text]
    found = SecondEnds({ZIMBABWE: 2, bubye: 1}).neighbourhood(
        "acme", ask.text, ask.vector, ask.filters, ask.depth, ask.residual
    )
    chain = Ranked(hits, TEXT_RANKING.arms, question, [1.0, 0.0], {bubye: 1.0}, ahead=Ahead(ask, found))
    search, late = SecondEnds({ZIMBABWE: 2, bubye: 1}), Recording()
    step = MultiHop(Capabilities(search=search, embedder=late), config)(job(hops=2), chain)
    assert search.asked == [] and late.texts == []
    assert [h.id for h in step.value.hits[:2]] == [RIVER, FALLS]
    assert step.notes["multihop"].endswith("second_ends=1 iterations=2 ahead=used round_trips=0")
    # Without the embedder ahead, the ask differs (no second end): the walk fetches its own.
    plain = first_ask(job(hops=2), hits, {bubye: 1.0}, question, [1.0, 0.0], config)
    assert plain is not None and plain.residual is None and not plain.same(ask)


@pytest.mark.parametrize(
    ("question", "through"),
    [
        ("Who was in charge of the country Ceelmakoile is located in?", True),
        ("In what county is the city where Harris W. Fawell was born?", True),
        ("The state where Henry Worrall died has how many congressional districts?", True),
        ("What currency predated the Euro in the country Signmark is from?", True),
        ("Who wrote The Hobbit?", False),
        ("How do I add a search box to the sidebar?", False),
        ("Which theme does Read the Docs use by default?", False),
    ],
)
def test_a_thing_described_by_one_clause_about_a_named_one_is_asked_through(
    question: str, through: bool
) -> None:
    assert asks_through(question) is through


def test_a_page_whose_title_the_question_writes_is_a_first_end_when_the_linker_linked_none() -> None:
    # The linker linked nothing in the top 5 (no named pages), but the question writes the river's title
    # as its page does: that page is the chain's first end, and its second end is asked as for a named
    # page. Written in lower case ("the bubye river"), it is not.
    hits = [hit(RIVER, 2.0), *(hit(c, 1.5 - i / 10) for i, c in enumerate(COMPARED))]
    config = CONFIG.model_copy(update={"weight": 0.0, "second_end_weight": 8.0, "second_end_floor": 0.6})
    question = "Which waterfall is in the country where the Bubye River is found?"
    for text, asked in ((question, True), (question.replace("Bubye River", "bubye river"), False)):
        search, embedder = SecondEnds({ZIMBABWE: 2}), Recording()
        chain = Ranked(hits, TEXT_RANKING.arms, text, [1.0, 0.0], {})
        step = MultiHop(Capabilities(search=search, embedder=embedder), config)(job(hops=2), chain)
        assert [r.entities if r else None for r in search.residuals] == ([(ZIMBABWE,)] if asked else [None])
        assert (step.value.hits[1].id == FALLS) is asked
