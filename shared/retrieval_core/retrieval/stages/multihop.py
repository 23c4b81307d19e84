"""Multi-hop evidence (``hops`` > 1): the passages around the pages the question names and the pages
the top hits name, ranked beside the text hits, so a bridge passage that shares no word with the
question can rank high, each with the path that reached it.

A walk, with no language model (docs/QUALITY.md, issue 68). Its seeds are the pages the question names
(auto's linker: titles and aliases by the dictionary, each at its link's confidence) and the ranking's
top hits (each its normalised score times ``decay`` per rank below the first). One ``_msearch`` fetches
the neighbourhood of those pages and of the pages their chunks link to (the question's pages' chunks
wherever they rank, then the top hits'), ranked by the question among the passages that are about or name
the followed pages only (the filter inside both arms, k-NN included), and how many of the context's
passages name each followed page. The question's own pages' one-word names are followed too ("the
country where the Bubye River is found" crosses the "Zimbabwe" its page writes, which no page is about),
weighed by specificity like pages. Scores then spread over that chunk-entity graph in both directions by
Personalized PageRank (``personalized_pagerank``, ``damping`` the chance to walk on, ``iterations``
steps), one walk per seed (the walk is linear in its restart, so a seed's own score never comes back to
it as a hop): each top hit's at its seed weight, the question's pages' together at ``named_weight``. A
passage hands its mass to the pages it names in proportion to how specific each is (the inverse of how
many passages name it), and a page to the passages naming it, its own chunks (``about``) before mere
mentions (``mention``), over every passage that names it, fetched or not: a title hundreds of chunks
write is a hub that spreads almost nothing. A walked passage scores its walked mass (over what one step
from a seed to a page it alone names brings) times its similarity to the question (its k-NN and BM25
scores in that search over the best a ranked hit has in each arm, ``relative`` of it against the most
similar passage its page leads to); the text ranking's score (normalised to the best hit) plus ``weight``
x that orders the result. ``hops`` 3 follows the best walked passages' pages in one more round trip.
Bounded: at most ``entities`` pages and ``candidates`` passages per arm per round trip, ``hops - 1``
round trips, ``iterations`` steps, and a cost line in ``applied``. ``auto`` asks the first fetch ahead,
in its focus arms' round trip, as hybrid's ranking predicts it (``first_ask``); the walk uses that
fetch, one round trip fewer, only when it asks exactly the same (``ahead=used`` in the cost line).

Where a walk helps and where it does harm: a seed's own page's other chunks are never a hop (the same
page, not the next one); ``auto`` walks only when its question names an entity the context knows; the
text ranking's first hit stays first (a walk adds evidence below the answer, never displaces it); a
comparison ("which was born first, A or B") keeps the page of every thing it names in the top
``COMPARED_TOP``, and a bridge comparison ("which film has the director born first, A or B") each
chain's other end too: the best ranked page each named page links to; a question asking through a thing
it names ("the state where X is located") keeps that page's best linked page beside it. A named page
that links no ranked page has, as its chain's other end, the best ranked passage of another page writing
one of its one-word names.

A chain's second end is asked for as well, in the same fetch: a question asking through the things it
names (not comparing them), whose named pages rank in the top five (or, when the linker linked none
there, the pages there whose titles the question writes, capitals included), is embedded again without
their names ("What currency predated the Euro in the country Signmark is from?" without "Signmark") and asked
by k-NN among the passages naming what those pages name ("Finland", which the markka's passage writes,
like tens of others). Unless a page a named page links to already ranks in the top five (the walk found
the second end), each such passage scoring above ``second_end_floor`` is lifted by ``second_end_weight``
times its margin, in units of the fifth hit's score (docs/QUALITY.md, "A chain's second end").
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from ...models.hits import Candidate, Hit, Hop, Signal
from ...models.page_titles import (
    ABOUT_ROLE,
    FILE_ENTITY_TYPE,
    PAGE_ENTITY_TYPE,
    SINGLE_NAME_TYPE,
    title_aliases,
)
from ...ports import (
    ENTITY_ARM,
    RESIDUAL_ARM,
    Capabilities,
    Embedder,
    Neighbourhood,
    NeighbourhoodAsk,
    NeighbourhoodSearch,
    Residual,
)
from ...understanding.multihop import asks_through, asks_two, compares, compares_through
from ..config import MultiHopConfig
from ..plans import AutoPlan, FusedPlan, plan_as
from .base import Job, Ranked, Step
from .cut import page_of

MULTIHOP_ARM = "multihop"
LEXICAL, VECTOR = "lexical", "vector"
QUESTION = "question"
"""A hop's ``from_id`` when the question itself names the entity the walk left from."""
COMPARED_TOP = 5
"""A comparison's named pages are kept within this many hits."""
FOLLOWED_TYPES = frozenset({PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE})
"""What a walk crosses: pages, and one-word names ("Zimbabwe" where no page is about it), each by its
specificity, so a name hundreds of passages write spreads almost nothing."""

N = TypeVar("N", bound=Hashable)


def personalized_pagerank(
    edges: Mapping[N, Mapping[N, float]], restart: Mapping[N, float], *, damping: float, iterations: int
) -> dict[N, float]:
    """Each node's mass after ``iterations`` steps of a walk that restarts on ``restart`` (weights,
    normalised here) with chance ``1 - damping`` and otherwise follows an edge: ``edges[u][v]`` is the
    share of ``u``'s mass that goes to ``v`` (at most 1 in all; what is missing leaves the graph, as to
    the passages a bounded fetch did not bring)."""
    total = sum(restart.values())
    if total <= 0:
        return {}
    start = {node: weight / total for node, weight in restart.items() if weight > 0}
    mass = dict(start)
    for _ in range(iterations):
        moved = {node: (1 - damping) * weight for node, weight in start.items()}
        for node, weight in mass.items():
            for neighbour, share in edges.get(node, {}).items():
                moved[neighbour] = moved.get(neighbour, 0.0) + damping * weight * share
        mass = moved
    return mass


@dataclass(frozen=True, slots=True)
class Linked:
    """A passage the walk reached (its hit, built once, before its score and arms are known): how
    strongly, and its path."""

    hit: Hit
    score: float
    path: tuple[Hop, ...]

    def ranked(self, score: float, signals: dict[str, Signal]) -> Hit:
        """The passage as a response hit: ``score``, ``signals``, found by the walk, with its path."""
        found_by = [*self.hit.found_by, MULTIHOP_ARM]
        update = {"score": score, "signals": signals, "found_by": found_by, "path": list(self.path)}
        return self.hit.model_copy(update=update)


@dataclass(slots=True)
class _Graph:
    """The chunk-entity neighbourhood in hand: every passage (the ranked hits and what the fetches
    brought), their similarity to the question, the followed entities and how many passages name each."""

    chunks: dict[str, Hit]
    similarity: dict[str, float]
    named_by: dict[str, int]
    names: dict[str, str]

    def specificity(self, entity_id: str) -> float:
        return 1.0 / max(1, self.named_by[entity_id])

    def pages(self, hit: Hit) -> list[tuple[str, bool]]:
        """The followed entities ``hit`` names (pages and one-word names), each with whether it is the
        hit's own page."""
        return [
            (m.entity_id, m.role == ABOUT_ROLE)
            for m in hit.mentions
            if m.type in FOLLOWED_TYPES and m.entity_id in self.named_by
        ]


@dataclass(frozen=True, slots=True)
class _SecondEnd:
    """A question asking through the things it names, once those are known: the named pages ranked in
    the top ``COMPARED_TOP`` (the chains' first ends) and what the question asks of their second ends."""

    anchors: tuple[Hit, ...]
    residual: Residual


class MultiHop:
    def __init__(self, capabilities: Capabilities, config: MultiHopConfig) -> None:
        self._search = capabilities.neighbourhood
        self._embedder = capabilities.embedder
        self._config = config

    def __call__(self, job: Job, ranked: Ranked) -> Step[Ranked]:
        hops = plan_as(job.plan, FusedPlan).hops  # the pipeline runs this stage only for hops > 1
        if not ranked.hits:
            return Step(ranked)
        if self._search is None or ranked.vector is None:
            return Step(ranked, {"multihop": "skipped: no hybrid search or query vector here"})
        if self._config.named_only and isinstance(job.plan, AutoPlan) and ENTITY_ARM not in ranked.arms:
            return Step(ranked, {"multihop": "skipped: the question names nothing the context knows"})
        return self._walk(job, ranked, hops, self._search)

    def _walk(self, job: Job, ranked: Ranked, hops: int, search: NeighbourhoodSearch) -> Step[Ranked]:
        config = self._config
        best = max(h.score for h in ranked.hits) or 1.0
        base = {h.id: h.score / best for h in ranked.hits}
        scales = _arm_scales(ranked.hits)
        seeds = {
            h.id: base[h.id] * config.decay**rank for rank, h in enumerate(ranked.hits[: config.seed_hits])
        }
        graph = _Graph(
            {h.id: h for h in ranked.hits},
            {h.id: _alike(h.signals, scales, config) for h in ranked.hits},
            {},
            {},
        )
        frontier, bridges = _first_frontier(ranked.hits, ranked.named, config)
        named = dict(ranked.named)
        known = None if ranked.ahead is None else ranked.ahead.asked.residual
        second_end = second_end_of(ranked.text, ranked.hits, ranked.named, self._embedder, config, known)
        asked = None if second_end is None else second_end.residual
        ends: Sequence[Candidate] = ()
        fetches, round_trips, fetched = 0, 0, 0
        ahead = "" if ranked.ahead is None else "ahead=missed "  # a first fetch made ahead, used or not
        walk: dict[str, float] = {}
        for _ in range(hops - 1):
            wanted = _followed(frontier, bridges, named, graph.named_by, config.entities)
            if not wanted:
                break
            ask = walk_ask(job, ranked.text, ranked.vector or [], wanted, config, asked)
            found = _prefetched(ranked, ask) if not fetches else None  # exactly what this round asks
            ahead, round_trips = ("ahead=used ", round_trips) if found else (ahead, round_trips + 1)
            found = found or search.neighbourhood(
                job.context_id, ask.text, ask.vector, ask.filters, ask.depth, ask.residual
            )
            fetches += 1
            ends, asked = ends or found.arms.get(RESIDUAL_ARM, ()), None  # asked once, in the first fetch
            fetched += sum(len(c) for c in found.arms.values())
            _grow(graph, found.arms, found.named_by, wanted, scales, config)
            walk = self._propagate(graph, named, seeds)
            frontier = [graph.chunks[c] for c in sorted(walk, key=lambda c: -walk[c])[: config.seed_hits]]
            named, bridges = {}, []  # the question's entities are followed once; later rounds follow the walk
        line = _cost_line(hops, len(seeds), len(ranked.named), graph, (fetched, ahead, round_trips), config)
        if not fetches:  # nothing to follow (no page links): the ranking as it was
            return Step(ranked, {"multihop": line.format(linked=0, ends=0)})
        found_links = self._linked(graph, ranked.named, seeds, walk)
        merged = _merged(ranked.hits, base, found_links, config)
        merged, lifted = _with_second_ends(merged, ends, second_end, ranked.named, config)
        merged = _chains_kept(merged, ranked)[: max(job.size, len(ranked.hits))]
        walked = replace(ranked, hits=merged, arms=(*ranked.arms, MULTIHOP_ARM))
        return Step(walked, {"multihop": line.format(linked=len(found_links), ends=lifted)})

    def _propagate(
        self, graph: _Graph, named: Mapping[str, float], seeds: Mapping[str, float]
    ) -> dict[str, float]:
        """Each passage's walked mass: what the walk from every seed but the passage's own page brought
        it (Personalized PageRank is linear in its restart, so one walk per seed, each weighed by its
        share of the restart: a seed's own score never comes back to it as a hop)."""
        config = self._config
        edges = _edges(graph, config)
        walked: dict[str, float] = {}
        for source, (restart, weight) in _restarts(graph, named, seeds, config.named_weight).items():
            mass = personalized_pagerank(edges, restart, damping=config.damping, iterations=config.iterations)
            own = page_of(source) if source != QUESTION else None
            for (kind, node), share in mass.items():
                if kind == "chunk" and node != source and (config.siblings or page_of(node) != own):
                    walked[node] = walked.get(node, 0.0) + weight * share / config.damping**2
        return walked

    def _linked(
        self, graph: _Graph, named: Mapping[str, float], seeds: Mapping[str, float], walk: Mapping[str, float]
    ) -> dict[str, Linked]:
        """The walked passages, each scored by its walked mass over the best times its similarity, with
        the path that brought it the most."""
        config = self._config
        reachable = {hit_id: mass for hit_id, mass in walk.items() if mass > 0}
        via = {hit_id: _via(graph, graph.chunks[hit_id], named, seeds, config) for hit_id in reachable}
        nearest: dict[str, float] = {}
        for hit_id, (entity_id, _, _) in via.items():
            nearest[entity_id] = max(nearest.get(entity_id, 0.0), graph.similarity.get(hit_id, 0.0))
        linked = {}
        for hit_id, mass in reachable.items():
            entity_id, from_id, about = via[hit_id]
            alike = graph.similarity.get(hit_id, 0.0)
            relative = alike / nearest[entity_id] if nearest[entity_id] > 0 else 0.0
            score = mass * ((1 - config.relative) * alike + config.relative * relative)
            hop = Hop(
                from_id=from_id,
                entity_id=entity_id,
                entity=graph.names.get(entity_id, entity_id),
                link="about" if about else "mentions",
            )
            linked[hit_id] = Linked(graph.chunks[hit_id], score, (hop,))
        return linked


def second_end_of(
    text: str,
    hits: Sequence[Hit],
    named: Mapping[str, float],
    embedder: Embedder | None,
    config: MultiHopConfig,
    known: Residual | None = None,
) -> _SecondEnd | None:
    """A question asking through the things it names ("What currency predated the Euro in the country
    Signmark is from?"), neither comparing them nor asking two things, whose named pages rank in the
    top ``COMPARED_TOP`` of ``hits``: the question without their names, embedded (``known``'s vector
    when it asked that already), to be asked among the passages naming what those pages name
    ("Finland"). None when there is no such question, no embedder, or nothing left to ask."""
    if embedder is None or config.second_end_weight <= 0 or not asks_through(text):
        return None
    if compares(text) or asks_two(text):  # each named thing's page is an answer, not a first end
        return None
    top = {h.id for h in hits[:COMPARED_TOP]}
    anchors = tuple(h for h in _named_pages(hits, named).values() if h.id in top) or _written(text, hits)
    rest = " ".join(_without_titles(text, anchors).split())
    entities = [
        m.entity_id
        for hit in anchors
        for m in hit.mentions
        if m.role != ABOUT_ROLE and m.type != FILE_ENTITY_TYPE
    ]
    if not anchors or rest == " ".join(text.split()) or len(rest.split()) < 2 or not entities:
        return None
    vector = known.vector if known is not None and known.text == rest else tuple(embedder.embed([rest])[0])
    return _SecondEnd(anchors, Residual(rest, vector, tuple(dict.fromkeys(entities))[: config.entities]))


def _written(text: str, hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """The best ranked chunk of each page in the top ``COMPARED_TOP`` whose title (or an alias) the
    question writes as the title does, capitals included ("The state where Henry Worrall died" and
    "Henry Worrall (artist)"): the chains' first ends when the linker linked none there."""
    pages: dict[str, Hit] = {}
    for hit in hits[:COMPARED_TOP]:
        if page_of(hit.id) not in pages and _without_titles(text, [hit], ignore_case=False) != text:
            pages[page_of(hit.id)] = hit
    return tuple(pages.values())


def _prefetched(ranked: Ranked, ask: NeighbourhoodAsk) -> Neighbourhood | None:
    """The walk's first fetch made ahead (``Ranked.ahead``, in ``auto``'s focus round trip) if it asked
    exactly ``ask``: no round trip."""
    ahead = ranked.ahead
    return ahead.found if ahead is not None and ahead.asked.same(ask) else None


def _first_frontier(
    hits: Sequence[Hit], named: Mapping[str, float], config: MultiHopConfig
) -> tuple[list[Hit], list[Hit]]:
    """The walk's first frontier (the question's pages' chunks wherever they rank, then the top hits:
    a chain leaves from them) and its bridges (whose one-word names are followed: the question's pages'
    chunks, the chain's first end only)."""
    question_pages = list(_named_pages(hits, named).values())
    return [*question_pages, *hits[: config.seed_hits]], question_pages


def walk_ask(
    job: Job,
    text: str,
    vector: Sequence[float],
    wanted: Sequence[str],
    config: MultiHopConfig,
    residual: Residual | None = None,
) -> NeighbourhoodAsk:
    """One round of the walk's fetch: the passages naming ``wanted``, ranked by the question,
    ``candidates`` per arm (and ``residual``'s arm: a chain's second end)."""
    filters = replace(job.filters, entities=tuple(wanted), size=config.candidates)
    return NeighbourhoodAsk(text, tuple(vector), filters, config.candidates, residual)


def first_ask(
    job: Job,
    hits: Sequence[Hit],
    named: Mapping[str, float],
    text: str,
    vector: Sequence[float],
    config: MultiHopConfig,
    embedder: Embedder | None = None,
) -> NeighbourhoodAsk | None:
    """What the walk's first round would fetch if it walked from ``hits`` (None: nothing to follow):
    ``auto`` asks it ahead of the walk, from hybrid's ranking, in its focus arms' round trip."""
    frontier, bridges = _first_frontier(hits, named, config)
    wanted = _followed(frontier, bridges, named, {}, config.entities)
    second_end = second_end_of(text, hits, named, embedder, config)
    residual = None if second_end is None else second_end.residual
    return walk_ask(job, text, vector, wanted, config, residual) if wanted else None


def _without_titles(text: str, pages: Sequence[Hit], *, ignore_case: bool = True) -> str:
    """``text`` without the titles (or their aliases, the longest first) of the pages ``pages`` are
    chunks of."""
    flags = re.IGNORECASE if ignore_case else 0
    for hit in pages:
        titles = [m.name for m in hit.mentions if m.role == ABOUT_ROLE and m.type == PAGE_ENTITY_TYPE]
        names = sorted({n for t in titles for n in (t, *title_aliases(t))}, key=len, reverse=True)
        for name in names:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text, flags=flags)
    return text


def _cost_line(
    hops: int, seeds: int, named: int, graph: _Graph, fetches: tuple[int, str, int], config: MultiHopConfig
) -> str:
    """``applied.multihop``'s cost line, with ``{linked}`` and ``{ends}`` left to fill in (``ahead``:
    whether a first fetch made ahead was used)."""
    fetched, ahead, round_trips = fetches
    hubs = sum(count > config.candidates for count in graph.named_by.values())
    return (
        f"hops={hops} seeds={seeds} named={named} entities={len(graph.named_by)} "
        f"hubs={hubs} fetched={fetched} linked={{linked}} second_ends={{ends}} "
        f"iterations={config.iterations} {ahead}round_trips={round_trips}"
    )


def _followed(
    frontier: Sequence[Hit],
    bridges: Sequence[Hit],
    named: Mapping[str, float],
    known: Mapping[str, int],
    cap: int,
) -> list[str]:
    """The entities to fetch the neighbourhood of: the question's (most confident first), the pages the
    frontier names (the best passage's first), then the one-word names of ``bridges`` (the pages the
    question names: "the country where the Bubye River is found" crosses what the river's page writes),
    none already fetched, at most ``cap``."""
    wanted = [e for e in sorted(named, key=lambda e: -named[e])]
    wanted += [m.entity_id for hit in frontier for m in hit.mentions if m.type == PAGE_ENTITY_TYPE]
    wanted += [m.entity_id for hit in bridges for m in hit.mentions if m.type == SINGLE_NAME_TYPE]
    return [e for e in dict.fromkeys(wanted) if e not in known][:cap]


def _grow(
    graph: _Graph,
    arms: Mapping[str, Sequence[Candidate]],
    named_by: Mapping[str, int],
    wanted: Sequence[str],
    scales: Mapping[str, float],
    config: MultiHopConfig,
) -> None:
    """Add one fetch's passages (its text arms'), their similarity to the question, and the followed
    entities' counts."""
    for entity_id in wanted:
        graph.named_by[entity_id] = named_by.get(entity_id, 0)
    shares = {LEXICAL: config.lexical_share, VECTOR: 1 - config.lexical_share}
    similarity: dict[str, float] = {}
    for arm in shares:
        for candidate in arms.get(arm, ()):
            share = shares.get(arm, 0.0) * candidate.score / scales.get(arm, 1.0)
            similarity[candidate.id] = similarity.get(candidate.id, 0.0) + share
            if candidate.id not in graph.chunks:
                graph.chunks[candidate.id] = candidate.hit(score=0.0, signals={}, found_by=[])
    for hit_id, alike in similarity.items():
        graph.similarity[hit_id] = max(graph.similarity.get(hit_id, 0.0), alike)
    for hit in graph.chunks.values():
        for mention in hit.mentions:
            graph.names.setdefault(mention.entity_id, mention.name)


Node = tuple[str, str]


def _edges(graph: _Graph, config: MultiHopConfig) -> dict[Node, dict[Node, float]]:
    """Both directions of the chunk-entity graph: a passage to the entities it names, by specificity;
    an entity to the passages naming it, its page's by ``about`` and others' by ``mention``, over all
    of them (the ones not in hand by ``mention`` each: their share leaves the graph)."""
    edges: dict[Node, dict[Node, float]] = {}
    inward: dict[str, dict[str, float]] = {}
    for hit in graph.chunks.values():
        pages = graph.pages(hit)
        total = sum(graph.specificity(e) for e, _ in pages)
        if total > 0:
            edges[("chunk", hit.id)] = {("entity", e): graph.specificity(e) / total for e, _ in pages}
        for entity_id, own in pages:
            inward.setdefault(entity_id, {})[hit.id] = config.about if own else config.mention
    for entity_id, passages in inward.items():
        unseen = max(0, graph.named_by[entity_id] - len(passages)) * config.mention
        total = sum(passages.values()) + unseen
        if total > 0:
            edges[("entity", entity_id)] = {("chunk", c): w / total for c, w in passages.items()}
    return edges


def _restarts(
    graph: _Graph, named: Mapping[str, float], seeds: Mapping[str, float], named_weight: float
) -> dict[str, tuple[dict[Node, float], float]]:
    """Each walk's restart and weight: one per top hit (its seed weight) and one from the question's
    entities together (spread by confidence times specificity, weighing ``named_weight``)."""
    question = {("entity", e): c * graph.specificity(e) for e, c in named.items() if e in graph.named_by}
    restarts = {c: ({("chunk", c): 1.0}, w) for c, w in seeds.items() if w > 0}
    if question and named_weight > 0:
        restarts[QUESTION] = (question, named_weight)
    return restarts


def _via(
    graph: _Graph, hit: Hit, named: Mapping[str, float], seeds: Mapping[str, float], config: MultiHopConfig
) -> tuple[str, str, bool]:
    """The path's last link: the entity that most likely brought ``hit`` (a named one first, then the
    best seed's), the passage it was left from (``QUESTION`` when the question names it) and whether
    ``hit`` is its page."""
    best: tuple[float, str, str, bool] | None = None
    for entity_id, own in graph.pages(hit):
        if entity_id in named:
            weight, from_id = named[entity_id], QUESTION
        else:
            sources = [
                (w, c)
                for c, w in seeds.items()
                if c != hit.id and any(e == entity_id for e, _ in graph.pages(graph.chunks[c]))
            ]
            if not sources:
                continue
            weight, from_id = max(sources)
        strength = weight * (config.about if own else config.mention) * graph.specificity(entity_id)
        if best is None or strength > best[0]:
            best = (strength, entity_id, from_id, own)
    if best is None:  # reached through a passage the walk found: the entity it shares with it
        entity_id, own = graph.pages(hit)[0]
        return entity_id, QUESTION, own
    return best[1], best[2], best[3]


def _alike(signals: Mapping[str, Signal], scales: Mapping[str, float], config: MultiHopConfig) -> float:
    """A ranked hit's similarity to the question, as a fetched passage's is measured."""
    shares = {LEXICAL: config.lexical_share, VECTOR: 1 - config.lexical_share}
    return sum(shares[arm] * signals[arm].score / scales[arm] for arm in shares if arm in signals)


def _arm_scales(hits: Sequence[Hit]) -> dict[str, float]:
    """Each text arm's best score among the ranked hits: what a linked passage's score is measured by."""
    scales = {}
    for arm in (LEXICAL, VECTOR):
        scores = [h.signals[arm].score for h in hits if arm in h.signals]
        scales[arm] = max(scores) if scores and max(scores) > 0 else 1.0
    return scales


def _merged(
    hits: Sequence[Hit], base: Mapping[str, float], found: Mapping[str, Linked], config: MultiHopConfig
) -> list[Hit]:
    """The text ranking and the walked passages in one order, each walked one with its path; with
    ``keep_first``, the text ranking's first hit first (at the best score, so scores still descend)."""
    weight = config.weight
    ranked_ids = {h.id for h in hits}
    order = sorted(found.values(), key=lambda link: -link.score)
    signal = {link.hit.id: Signal(rank=rank, score=link.score) for rank, link in enumerate(order, 1)}
    merged: list[Hit] = []
    for hit in hits:
        link = found.get(hit.id)
        if link is None:
            merged.append(hit.rescored(base[hit.id]))
            continue
        # The ranked hit keeps its own signals and arms; the walk's are added.
        again = replace(link, hit=hit)
        signals = {**hit.signals, MULTIHOP_ARM: signal[hit.id]}
        merged.append(again.ranked(base[hit.id] + weight * link.score, signals))
    for link in order:
        if link.hit.id not in ranked_ids:
            merged.append(link.ranked(weight * link.score, {MULTIHOP_ARM: signal[link.hit.id]}))
    return _ordered(merged, hits[0].id if config.keep_first and hits else None)


def _ordered(hits: list[Hit], first_id: str | None) -> list[Hit]:
    """``hits`` by score, ``first_id`` first (at the best score, so scores still descend)."""
    hits.sort(key=lambda h: (-h.score, h.id))
    if first_id is None or hits[0].id == first_id:
        return hits
    first = next(h for h in hits if h.id == first_id)
    rest = [h for h in hits if h.id != first.id]
    return [first.model_copy(update={"score": hits[0].score}), *rest]


def _with_second_ends(
    hits: list[Hit],
    candidates: Sequence[Candidate],
    second_end: _SecondEnd | None,
    named: Mapping[str, float],
    config: MultiHopConfig,
) -> tuple[list[Hit], int]:
    """``hits`` with the chains' second ends lifted (``_second_ends``), unless none was asked for or
    the walk already ranks one in the top ``COMPARED_TOP``; the first ends staying there. Also how many
    were lifted."""
    if second_end is None or not candidates or _linked_in_top(hits, second_end.anchors):
        return hits, 0
    lifted, count = _second_ends(hits, candidates, second_end, named, config)
    return _kept(lifted, [a.id for a in second_end.anchors], []), count


def _chains_kept(hits: list[Hit], ranked: Ranked) -> list[Hit]:
    """A comparison's named pages (and a bridge comparison's chains), or a question asking through the
    things it names their chains' other ends, kept in the top ``COMPARED_TOP``."""
    if compares(ranked.text) and len(ranked.named) > 1:
        return _compared(hits, ranked.named, through=compares_through(ranked.text))
    if asks_through(ranked.text) and ranked.named:
        return _chained(hits, ranked.named)
    return hits


def _second_ends(
    hits: list[Hit],
    candidates: Sequence[Candidate],
    second_end: _SecondEnd,
    named: Mapping[str, float],
    config: MultiHopConfig,
) -> tuple[list[Hit], int]:
    """Each passage naming what a named page names (``candidates``), lifted by ``second_end_weight``
    times its k-NN score's margin above ``second_end_floor`` against the question without the named
    things, in units of the fifth hit's score, entering the ranking if it was not there; never a chunk
    of a named page; the first hit staying first. Also how many were lifted."""
    own = {page_of(a.id) for a in second_end.anchors}
    margins = {
        c.id: c.score - config.second_end_floor
        for c in candidates
        if c.score > config.second_end_floor and page_of(c.id) not in own
    }
    ranked_ids = {h.id for h in hits}
    newcomers = [
        _reached(c, second_end, margins[c.id]) for c in candidates if c.id in margins.keys() - ranked_ids
    ]
    unit = hits[min(COMPARED_TOP, len(hits)) - 1].score * config.second_end_weight
    result, count = [], 0
    for hit in [*hits, *newcomers]:
        if hit.id in margins and not any(m.role == ABOUT_ROLE and m.entity_id in named for m in hit.mentions):
            hit = hit.rescored(hit.score + unit * margins[hit.id])
            count += 1
        elif hit.id not in ranked_ids:
            continue  # a newcomer about a named thing: that page is the first end, not the second
        result.append(hit)
    return _ordered(result, hits[0].id if config.keep_first and hits else None), count


def _linked_in_top(hits: Sequence[Hit], anchors: Sequence[Hit]) -> bool:
    """Whether every chain already has its second end in the top ``COMPARED_TOP``: a page each named
    page links to ranks there (the walk found it; a passage merely sharing a name with it stays below)."""
    top = {m.entity_id for h in hits[:COMPARED_TOP] for m in h.mentions if m.role == ABOUT_ROLE}
    return all(
        any(m.type == PAGE_ENTITY_TYPE and m.role != ABOUT_ROLE and m.entity_id in top for m in a.mentions)
        for a in anchors
    )


def _reached(candidate: Candidate, second_end: _SecondEnd, margin: float) -> Hit:
    """A passage new to the ranking, found as a chain's second end: reached from the first named page
    through what both name."""
    hit = candidate.hit(score=0.0, signals={}, found_by=[])
    entities = set(second_end.residual.entities)
    via = next(m for m in hit.mentions if m.entity_id in entities)
    hop = Hop(
        from_id=second_end.anchors[0].id,
        entity_id=via.entity_id,
        entity=via.name,
        link="about" if via.role == ABOUT_ROLE else "mentions",
    )
    signals = {MULTIHOP_ARM: Signal(rank=1, score=margin)}
    return hit.model_copy(update={"found_by": [MULTIHOP_ARM], "path": [hop], "signals": signals})


def _compared(hits: list[Hit], named: Mapping[str, float], *, through: bool) -> list[Hit]:
    """A comparison's every named thing's page within the top ``COMPARED_TOP`` (the first hit staying
    first), and with ``through`` (a bridge comparison) each one's chain too: the best ranked page the
    named page links to; the named pages take places first."""
    pages = _named_pages(hits, named)
    return _kept(hits, [h.id for h in pages.values()], _chain_ends(hits, pages) if through else [])


def _chained(hits: list[Hit], named: Mapping[str, float]) -> list[Hit]:
    """A question that asks for something through a thing it names ("the state where X is located"):
    each named page in the top ``COMPARED_TOP`` keeps its chain's other end there too, the best ranked
    page it links to."""
    top = {h.id for h in hits[:COMPARED_TOP]}
    pages = {e: h for e, h in _named_pages(hits, named).items() if h.id in top}
    return _kept(hits, [h.id for h in pages.values()], _chain_ends(hits, pages))


def _named_pages(hits: Sequence[Hit], named: Mapping[str, float]) -> dict[str, Hit]:
    """Each named entity's best ranked chunk of its own page."""
    pages: dict[str, Hit] = {}
    for hit in hits:
        for mention in hit.mentions:
            if mention.role == ABOUT_ROLE and mention.entity_id in named:
                pages.setdefault(mention.entity_id, hit)
    return pages


def _kept(hits: list[Hit], first: Sequence[str], then: Sequence[str]) -> list[Hit]:
    """``first``, then ``then`` (hit ids) within the top ``COMPARED_TOP``, the first hit staying first:
    each missing one takes the place, and the score, of the lowest hit there that is none of these,
    which ranks next below; the moved ones keep their order."""
    wanted = {*first, *then}
    top, rest = list(hits[:COMPARED_TOP]), list(hits[COMPARED_TOP:])
    displaced: list[Hit] = []
    free = [i for i in range(len(top) - 1, 0, -1) if top[i].id not in wanted]  # lowest first
    movers = [*(h for h in rest if h.id in first), *(h for h in rest if h.id in then)][: len(free)]
    for hit, slot in zip(movers, sorted(free[: len(movers)]), strict=True):  # in their order, downwards
        displaced.append(top[slot])
        top[slot] = hit.model_copy(update={"score": top[slot].score})
        rest.remove(hit)
    top.sort(key=lambda h: -h.score)  # stable: the first hit stays first among equal scores
    ordered: list[Hit] = []
    for hit in [*top, *displaced, *rest]:  # a displaced hit at most at the score of the one above it
        if ordered and hit.score > ordered[-1].score:
            hit = hit.model_copy(update={"score": ordered[-1].score})
        ordered.append(hit)
    return ordered


def _chain_ends(hits: Sequence[Hit], pages: Mapping[str, Hit]) -> list[str]:
    """For each named thing's page (``pages``: entity to its best chunk), the best ranked chunk of a page
    that chunk links to (not a named page), else of another page writing one of its one-word names: the
    other end of its chain."""
    ends: list[str] = []
    for chunk in pages.values():
        linked = {
            m.entity_id
            for m in chunk.mentions
            if m.type == PAGE_ENTITY_TYPE and m.role != ABOUT_ROLE and m.entity_id not in pages
        }
        end = next(
            (h.id for h in hits if any(m.role == ABOUT_ROLE and m.entity_id in linked for m in h.mentions)),
            None,
        )
        if end is None:  # no linked page ranked: the best passage writing one of its one-word names
            bridges = {m.entity_id for m in chunk.mentions if m.type == SINGLE_NAME_TYPE}
            end = next(
                (
                    h.id
                    for h in hits
                    if h.id != chunk.id
                    and page_of(h.id) != page_of(chunk.id)
                    and any(m.entity_id in bridges for m in h.mentions)
                ),
                None,
            )
        if end is not None and end not in ends:
            ends.append(end)
    return ends
