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

Where a walk helps and where it does harm (docs/QUALITY.md, issue 68): a seed's own page's other chunks
are never a hop (they are the same page, not the next one); ``auto`` walks only when its question names
an entity the context knows; the text ranking's first hit stays first (a walk adds evidence below the
answer, never displaces it); and with ``specific`` > 0 an entity that many of the fetched passages name
(a short, common title: a command name hundreds of chunks write) is a hub, linking at
``specific / named`` of its weight (off by default until a documentation collection can choose it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ...models.hits import Candidate, Hit, Hop, Signal
from ...models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from ...ports import ENTITY_ARM, Capabilities, HybridSearch
from ..config import MultiHopConfig
from ..plans import AutoPlan, FusedPlan, plan_as
from .base import Job, Ranked, Step
from .cut import page_of

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
        if self._config.named_only and isinstance(job.plan, AutoPlan) and ENTITY_ARM not in ranked.arms:
            return Step(ranked, {"multihop": "skipped: the question names nothing the context knows"})
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
        cost = {"entities": 0, "fetched": 0, "hubs": 0, "round_trips": 0}
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
            reached, hubs = _reached(arms, links, scales, config, found)
            cost["hubs"] += hubs
            found.update(reached)
            seeds = [(link.hit, link.score) for link in _best(reached.values(), config.seed_hits)]
        merged = _merged(ranked.hits, base, found, config)[: max(job.size, len(ranked.hits))]
        line = (
            f"hops={hops} seeds={min(config.seed_hits, len(ranked.hits))} entities={cost['entities']} "
            f"hubs={cost['hubs']} fetched={cost['fetched']} linked={len(found)} "
            f"round_trips={cost['round_trips']}"
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
) -> tuple[dict[str, Linked], int]:
    """The passages one search brought, scored by their strongest link times their similarity, and how
    many of the followed entities were hubs."""
    similarity: dict[str, float] = {}
    candidates: dict[str, Candidate] = {}
    shares = {LEXICAL: config.lexical_share, VECTOR: 1 - config.lexical_share}
    for arm, ranked in arms.items():
        for candidate in ranked:
            share = shares.get(arm, 0.0) * candidate.score / scales.get(arm, 1.0)
            similarity[candidate.id] = similarity.get(candidate.id, 0.0) + share
            candidates.setdefault(candidate.id, candidate)
    hits = [candidate.hit(score=0.0, signals={}, found_by=[]) for candidate in candidates.values()]
    specificity = _specificity(hits, links, config.specific)
    scored = []
    for hit in hits:
        best = _strongest(hit, links, config, specificity)
        if best is not None:
            scored.append((hit, *best, similarity[hit.id]))
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
    return reached, sum(weight < 1 for weight in specificity.values())


def _specificity(hits: Sequence[Hit], links: Mapping[str, PageLink], specific: int) -> dict[str, float]:
    """Each followed entity's weight by how specific it is: 1 when at most ``specific`` of the fetched
    passages name it, else ``specific / named`` (the inverse of its frequency in the neighbourhood the
    bounded fetch brought: a hub spreads almost nothing). ``specific`` 0: every entity weighs 1."""
    named: dict[str, int] = dict.fromkeys(links, 0)
    for hit in hits:
        for entity_id in {m.entity_id for m in hit.mentions if m.entity_id in named}:
            named[entity_id] += 1
    if specific <= 0:
        return dict.fromkeys(links, 1.0)
    return {entity_id: min(1.0, specific / count) if count else 1.0 for entity_id, count in named.items()}


def _strongest(
    hit: Hit, links: Mapping[str, PageLink], config: MultiHopConfig, specificity: Mapping[str, float]
) -> tuple[PageLink, float] | None:
    best: tuple[PageLink, float] | None = None
    for mention in hit.mentions:
        link = links.get(mention.entity_id)
        if link is None or link.from_id == hit.id:
            continue
        if not config.siblings and page_of(link.from_id) == page_of(hit.id):
            continue  # the seed's own page: not a hop
        about = mention.role == ABOUT_ROLE and not link.own
        weight = config.about if about else config.mention
        strength = link.weight * weight * specificity[mention.entity_id]
        if best is None or strength > best[1]:
            best = (link, strength)
    return best


def _role(hit: Hit, link: PageLink) -> str:
    about = any(m.entity_id == link.entity_id and m.role == ABOUT_ROLE for m in hit.mentions)
    return "about" if about else "mentions"


def _best(linked: Iterable[Linked], count: int) -> list[Linked]:
    return sorted(linked, key=lambda link: -link.score)[:count]


def _merged(
    hits: Sequence[Hit], base: Mapping[str, float], found: Mapping[str, Linked], config: MultiHopConfig
) -> list[Hit]:
    """The text ranking and the linked passages in one order, each linked one with its path; with
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
    merged.sort(key=lambda h: (-h.score, h.id))
    if not config.keep_first or not hits or merged[0].id == hits[0].id:
        return merged
    first = next(h for h in merged if h.id == hits[0].id)
    rest = [h for h in merged if h.id != first.id]
    return [first.model_copy(update={"score": merged[0].score}), *rest]
