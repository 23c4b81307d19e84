"""Multi-hop evidence (``hops`` > 1): the pages the top hits name, ranked beside them, so a bridge
passage that shares no word with the question can rank first, each with the path that reached it.

A hop, with no language model: the seeds are the ranking's top hits, each weighing its normalised
score times ``decay`` per rank below the first. The entities a seed links to are the pages it names
(its ``page`` mentions) and its own page (which other passages name). One ``_msearch`` then ranks, by
the question and among the passages that are about or mention those entities only (the filter inside
both arms, k-NN included), the linked passages. A linked passage scores

    link x similarity,   link = max over its entities (seed weight x about|mention weight)

where similarity is its k-NN and BM25 scores in that search, each over the best a ranked hit has in its
own arm; the text ranking's score (normalised to the best hit) plus ``weight`` x that orders the result.
The best linked passages seed the next hop (``hops`` 3: two hops, two round trips). Bounded: at most
``entities`` entities and ``candidates`` passages per arm per hop, and ``hops - 1`` round trips.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ...models.hits import Candidate, Hit, Hop, Signal
from ...models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from ...ports import Capabilities, HybridSearch
from ..config import MultiHopConfig
from ..plans import FusedPlan, plan_as
from .base import Job, Ranked, Step

MULTIHOP_ARM = "multihop"
LEXICAL, VECTOR = "lexical", "vector"


@dataclass(frozen=True, slots=True)
class PageLink:
    """Why an entity is followed: the weight of the passage naming it, that passage, and the entity."""

    weight: float
    from_id: str
    entity_id: str
    entity: str
    own: bool
    """The seed is this entity's page: a passage naming it links back (a mention, never ``about``)."""


@dataclass(frozen=True, slots=True)
class Linked:
    """A passage one hop reached (its hit, built once, before its score and arms are known): how strongly,
    and its path."""

    hit: Hit
    score: float
    path: tuple[Hop, ...]

    def ranked(self, score: float, signals: dict[str, Signal]) -> Hit:
        """The passage as a response hit: ``score``, ``signals``, found by the walk, with its path."""
        found_by = [*self.hit.found_by, MULTIHOP_ARM]
        update = {"score": score, "signals": signals, "found_by": found_by, "path": list(self.path)}
        return self.hit.model_copy(update=update)


class MultiHop:
    def __init__(self, capabilities: Capabilities, config: MultiHopConfig) -> None:
        self._search = capabilities.hybrid
        self._config = config

    def __call__(self, job: Job, ranked: Ranked) -> Step[Ranked]:
        hops = plan_as(job.plan, FusedPlan).hops  # the pipeline runs this stage only for hops > 1
        if not ranked.hits:
            return Step(ranked)
        if self._search is None or ranked.vector is None:
            return Step(ranked, {"multihop": "skipped: no hybrid search or query vector here"})
        return self._walk(job, ranked, hops, self._search)

    def _walk(self, job: Job, ranked: Ranked, hops: int, search: HybridSearch) -> Step[Ranked]:
        config = self._config
        best = max(h.score for h in ranked.hits) or 1.0
        base = {h.id: h.score / best for h in ranked.hits}
        scales = _arm_scales(ranked.hits)
        seeds = [
            (h, base[h.id] * config.decay**rank) for rank, h in enumerate(ranked.hits[: config.seed_hits])
        ]
        found: dict[str, Linked] = {}
        cost = {"entities": 0, "fetched": 0, "round_trips": 0}
        for _ in range(hops - 1):
            links = _links(seeds, {hit_id: link.path for hit_id, link in found.items()}, config.entities)
            if not links:
                break
            filters = replace(job.filters, entities=tuple(links), size=config.candidates)
            arms = search.hybrid(
                job.context_id, ranked.text, ranked.vector or [], filters, config.candidates
            ).arms
            cost["entities"] += len(links)
            cost["fetched"] += sum(len(c) for c in arms.values())
            cost["round_trips"] += 1
            reached = _reached(arms, links, scales, config, found)
            found.update(reached)
            seeds = [(link.hit, link.score) for link in _best(reached.values(), config.seed_hits)]
        merged = _merged(ranked.hits, base, found, config.weight)[: max(job.size, len(ranked.hits))]
        line = (
            f"hops={hops} seeds={min(config.seed_hits, len(ranked.hits))} entities={cost['entities']} "
            f"fetched={cost['fetched']} linked={len(found)} round_trips={cost['round_trips']}"
        )
        if not cost["round_trips"]:  # nothing to follow (no page links): the ranking as it was
            return Step(ranked, {"multihop": line})
        return Step(replace(ranked, hits=merged, arms=(*ranked.arms, MULTIHOP_ARM)), {"multihop": line})


def _arm_scales(hits: Sequence[Hit]) -> dict[str, float]:
    """Each text arm's best score among the ranked hits: what a linked passage's score is measured by."""
    scales = {}
    for arm in (LEXICAL, VECTOR):
        scores = [h.signals[arm].score for h in hits if arm in h.signals]
        scales[arm] = max(scores) if scores and max(scores) > 0 else 1.0
    return scales


def _links(
    seeds: Sequence[tuple[Hit, float]], paths: Mapping[str, tuple[Hop, ...]], cap: int
) -> dict[str, PageLink]:
    """The entities the seeds link to, each with its strongest seed, strongest first, at most ``cap``."""
    links: dict[str, PageLink] = {}
    for hit, weight in seeds:
        for mention in hit.mentions:
            if mention.type != PAGE_ENTITY_TYPE:
                continue
            known = links.get(mention.entity_id)
            if known is None or known.weight < weight:
                own = mention.role == ABOUT_ROLE
                links[mention.entity_id] = PageLink(weight, hit.id, mention.entity_id, mention.name, own)
    strongest = sorted(links.values(), key=lambda link: (-link.weight, link.entity_id))[:cap]
    return {link.entity_id: link for link in strongest}


def _reached(
    arms: Mapping[str, Sequence[Candidate]],
    links: Mapping[str, PageLink],
    scales: Mapping[str, float],
    config: MultiHopConfig,
    found: Mapping[str, Linked],
) -> dict[str, Linked]:
    """The passages one search brought, scored by their strongest link times their similarity."""
    similarity: dict[str, float] = {}
    candidates: dict[str, Candidate] = {}
    shares = {LEXICAL: config.lexical_share, VECTOR: 1 - config.lexical_share}
    for arm, ranked in arms.items():
        for candidate in ranked:
            share = shares.get(arm, 0.0) * candidate.score / scales.get(arm, 1.0)
            similarity[candidate.id] = similarity.get(candidate.id, 0.0) + share
            candidates.setdefault(candidate.id, candidate)
    scored = []
    for candidate_id, candidate in candidates.items():
        hit = candidate.hit(score=0.0, signals={}, found_by=[])
        best = _strongest(hit, links, config)
        if best is not None:
            scored.append((hit, *best, similarity[candidate_id]))
    # Among the passages one seed links to, the one most like the question is the likeliest next hop.
    nearest: dict[str, float] = {}
    for _, link, _, alike in scored:
        nearest[link.from_id] = max(nearest.get(link.from_id, 0.0), alike)
    reached = {}
    for hit, link, strength, alike in scored:
        relative = alike / nearest[link.from_id] if nearest[link.from_id] > 0 else 0.0
        score = strength * ((1 - config.relative) * alike + config.relative * relative)
        previous = found.get(link.from_id)
        prefix = previous.path if previous is not None else ()
        hop = Hop(from_id=link.from_id, entity_id=link.entity_id, entity=link.entity, link=_role(hit, link))
        if hit.id not in found or found[hit.id].score < score:
            reached[hit.id] = Linked(hit, score, (*prefix, hop))
    return reached


def _strongest(
    hit: Hit, links: Mapping[str, PageLink], config: MultiHopConfig
) -> tuple[PageLink, float] | None:
    best: tuple[PageLink, float] | None = None
    for mention in hit.mentions:
        link = links.get(mention.entity_id)
        if link is None or link.from_id == hit.id:
            continue
        about = mention.role == ABOUT_ROLE and not link.own
        strength = link.weight * (config.about if about else config.mention)
        if best is None or strength > best[1]:
            best = (link, strength)
    return best


def _role(hit: Hit, link: PageLink) -> str:
    about = any(m.entity_id == link.entity_id and m.role == ABOUT_ROLE for m in hit.mentions)
    return "about" if about else "mentions"


def _best(linked: Iterable[Linked], count: int) -> list[Linked]:
    return sorted(linked, key=lambda link: -link.score)[:count]


def _merged(
    hits: Sequence[Hit], base: Mapping[str, float], found: Mapping[str, Linked], weight: float
) -> list[Hit]:
    """The text ranking and the linked passages in one order, each linked one with its path."""
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
    return sorted(merged, key=lambda h: (-h.score, h.id))
