"""Each mode's arms: the searches that serve it, from the typed ``Capabilities`` set the composition root
built (``retrieval.modes`` names each mode's). A missing capability raises ``CapabilityMissingError``
before anything is read (the pipeline answers a typed-empty ranking with ``supported: false``): never a
scan.

Every mode runs the same pipeline (``retrieval.pipeline``); only its arms differ: what a feedback first
pass reads (``first_pass``; None: the mode takes no feedback) and what the arms search (``search``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import TypeVar

from ..backend_calls import concurrently
from ..models.hits import Candidate, Hit
from ..ports import Capabilities, FeedbackHit, HybridSearch, SearchFilters
from .config import MultiHopConfig
from .errors import CapabilityMissingError
from .feedback import FeedbackOptions, FeedbackText
from .plans import AutoPlan, EmbeddedPlan, EntityPlan, GraphWalkPlan, TemporalPlan, plan_as
from .responses import GRAPH_ARM
from .stages.base import FirstPass, Job, Searched, SearchQuery, Step
from .stages.fusion import alone, fuse
from .stages.graph_arm import GraphArm

T = TypeVar("T")


class _Embedding:
    """The query's vector: the caller's own, else the embedder's (a missing embedder: typed-empty)."""

    def __init__(self, capabilities: Capabilities) -> None:
        self._can = capabilities

    def check_embedder(self, job: Job) -> None:
        if plan_as(job.plan, EmbeddedPlan).vector is None:
            require(self._can.embedder, "embedder")

    def vector(self, job: Job, query: SearchQuery | None = None) -> list[float]:
        if query is not None and query.vector is not None:
            return query.vector
        plan = plan_as(job.plan, EmbeddedPlan)
        if plan.vector is not None:
            return list(plan.vector)
        return require(self._can.embedder, "embedder").embed([plan.text])[0]


class _NoFeedback:
    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        return None


class LexicalArm:
    def __init__(self, capabilities: Capabilities) -> None:
        self._lexical = capabilities.lexical

    def check(self, job: Job) -> None:
        require(self._lexical, "lexical")

    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        if options.weight <= 0:
            return None  # no expansion terms asked for: lexical has no vector to move, so no first pass
        # BM25 ranks exactly: its top hits are the same whatever the depth, so the first pass asks for
        # just the hits feedback reads.
        shallow = replace(job.filters, size=options.docs)
        first = require(self._lexical, "lexical").lexical(job.context_id, query.text, shallow)
        texts = [
            FeedbackText(f.item.hit(score=f.score, signals={}, found_by=[]).text, f.score)
            for f in alone("lexical", first, "by_best")
        ]
        return FirstPass(texts=texts, vectors=None)

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        lexical = require(self._lexical, "lexical")
        filters = single_arm_filters(job)
        candidates = lexical.lexical(job.context_id, query.text, filters, query.expansion)
        return Step(Searched({"lexical": candidates}, asked=filters.size, fuse=False, single="by_best"))


class VectorArm(_Embedding):
    def check(self, job: Job) -> None:
        require(self._can.vector, "vector")
        self.check_embedder(job)

    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        source = self._can.feedback
        if options.vector_weight <= 0 or source is None:
            return None
        # The first pass brings its top hits' vectors along: one round trip, no read.
        vector = self.vector(job, query)
        top = source.vector_feedback(job.context_id, vector, replace(job.filters, size=options.docs))
        return FirstPass(texts=None, vectors=[hit.vector for hit in top], vector=vector)

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        filters = single_arm_filters(job)
        candidates = require(self._can.vector, "vector").vector(
            job.context_id, self.vector(job, query), filters
        )
        return Step(Searched({"vector": candidates}, asked=filters.size, fuse=False, single="raw"))


def single_arm_filters(job: Job) -> SearchFilters:
    """How deep lexical or vector asks its one arm: the ranking's depth, or with pages kept apart as deep
    as hybrid asks each arm (``candidate_depth``), so other files' chunks are there to take the places a
    file's second chunk would have taken. The cut still builds only the ranking's depth."""
    if not job.query.applied.pages_apart:
        return job.filters
    return replace(job.filters, size=max(job.query.tuning.fusion.candidate_depth, job.size))


class HybridArms(_Embedding):
    """Lexical and vector in one ``_msearch``, each arm ``max(candidate_depth, depth)`` deep."""

    name = "hybrid"

    def _store(self) -> HybridSearch:
        return require(self._can.hybrid, self.name)

    def check(self, job: Job) -> None:
        self._store()
        self.check_embedder(job)

    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        """The text arms' first pass: BM25's top hits searched while the query is embedded, or (``fused``,
        or a store without feedback searches) the fused top hits."""
        source = self._can.feedback
        if options.first_pass == "fused" or source is None:
            vector = self.vector(job)
            first = self._fused_first_pass(job, query.text, vector, options)
        else:
            search = partial(
                source.lexical_feedback, job.context_id, query.text, replace(job.filters, size=options.docs)
            )
            first, vector = concurrently(search, partial(self.vector, job))
        first = first[: options.docs]
        texts = [FeedbackText(hit.text, hit.score) for hit in first]
        return FirstPass(texts=texts, vectors=[hit.vector for hit in first], vector=vector)

    def _fused_first_pass(
        self, job: Job, text: str, vector: list[float], options: FeedbackOptions
    ) -> list[FeedbackHit]:
        """The fused top hits, the best judge of relevance: both arms rank the configured pool (a fused
        top needs each arm's full ranks, and every page of a request gets the same feedback) with ids
        only, then one read brings just the top hits' texts and vectors."""
        fusion, ctx = job.query.tuning.fusion, job.context_id
        arms = (
            self._store().hybrid(ctx, text, vector, job.filters, fusion.candidate_depth, ids_only=True).arms
        )
        top = fuse(arms, fusion)[: options.docs]
        reader = self._can.vectors
        stored = reader.vectors(ctx, [f.id for f in top]) if reader is not None and top else {}
        return [
            FeedbackHit(f.id, f.score, stored[f.id].text, stored[f.id].vector) for f in top if f.id in stored
        ]

    def depth(self, job: Job) -> int:
        return max(job.query.tuning.fusion.candidate_depth, job.size)

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        depth = self.depth(job)
        vector = self.vector(job, query)
        arms = (
            self._store().hybrid(job.context_id, query.text, vector, job.filters, depth, query.expansion).arms
        )
        return Step(Searched(arms, asked=depth, fuse=True, vector=vector))


class AutoArms(HybridArms):
    """Hybrid's arms (and its feedback) with the question read first: ``retrieval.auto``. ``walk``: the
    multi-hop stage's config, whose first fetch auto may make ahead of the walk."""

    name = "auto"

    def __init__(self, capabilities: Capabilities, walk: MultiHopConfig) -> None:
        super().__init__(capabilities)
        self._walk = walk

    def check(self, job: Job) -> None:
        require(self._can.question, "auto")
        self.check_embedder(job)

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        # Reading a question (``understanding``) is imported by the first auto request, not by a
        # container that serves other modes: about 15 ms of a cold start.
        from .auto import auto_arms, walk_ahead

        store, depth = require(self._can.question, "auto"), self.depth(job)
        vector = self.vector(job, query)
        plan = plan_as(job.plan, AutoPlan)
        ahead = (
            partial(walk_ahead, job, query.text, vector, depth, self._walk, embedder=self._can.embedder)
            if self._walks(job)
            else None
        )
        names = self._can.names
        read = auto_arms(
            store, job.context_id, plan, vector, job.filters, depth, query.expansion, ahead, names
        )
        searched = Searched(
            read.arms,
            asked=depth,
            fuse=True,
            arm_weights=read.arm_weights,
            kind_weights=read.kind_weights,
            vector=vector,
            named=read.named,
            ahead=read.ahead,
        )
        return Step(searched, {"inferred": read.inferred})

    def _walks(self, job: Job) -> bool:
        """Whether a walk follows the hits as fused here (a rerank reorders them first), so its first
        fetch is worth asking ahead."""
        hops = plan_as(job.plan, AutoPlan).hops
        return (
            self._walk.ahead
            and hops > 1
            and self._can.neighbourhood is not None
            and not job.query.tuning.reranks
        )


class EntityArm(_NoFeedback):
    def __init__(self, capabilities: Capabilities) -> None:
        self._entity = capabilities.entity

    def check(self, job: Job) -> None:
        require(self._entity, "entity")

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        entity_id = plan_as(job.plan, EntityPlan).entity_id
        return one_arm(
            "entity",
            require(self._entity, "entity").by_entity(job.context_id, entity_id, job.filters),
            job.size,
        )


class TemporalArm(_NoFeedback):
    def __init__(self, capabilities: Capabilities) -> None:
        self._temporal = capabilities.temporal

    def check(self, job: Job) -> None:
        require(self._temporal, "temporal")

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        window = plan_as(job.plan, TemporalPlan).window
        hits = require(self._temporal, "temporal").in_window(job.context_id, window, job.filters)
        return one_arm("temporal", hits, job.size)


class GraphWalkArm(_NoFeedback):
    def __init__(self, graph: GraphArm) -> None:
        self._graph = graph

    def check(self, job: Job) -> None:
        self._graph.check()

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        # The walk is whole (bounded by the node cap), so its ranking is complete at once.
        seeds = [plan_as(job.plan, GraphWalkPlan).entity_id]
        hits = self._graph.hits(job, seeds, job.query.applied.depth, exclude=set())
        return one_arm(GRAPH_ARM, hits, None)


def one_arm(name: str, hits: Sequence[Hit], asked: int | None) -> Step[Searched]:
    """A single arm's built hits as candidates that keep everything but the score they are ranked with."""
    candidates = [Candidate(hit.id, hit.kind, hit.score, hit) for hit in hits]
    return Step(Searched({name: candidates}, asked=asked, fuse=False))


def require(capability: T | None, name: str) -> T:
    if capability is None:
        raise CapabilityMissingError(name)
    return capability
