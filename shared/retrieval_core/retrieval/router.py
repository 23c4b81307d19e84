"""``RetrievalRouter``: the ranker every mode goes through, shared by every entry point.

It routes the mode to the capability that serves it (from the typed ``Capabilities`` set the
composition root built) and post-processes the ranking (weights, min score, order, rerank). A missing
capability yields a typed-empty ranking with ``supported: false``: never a scan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

from ..context import CallerContext
from ..graph.walk import walk
from ..models.hits import Candidate, Hit, Signal
from ..models.vocabulary import Kind
from ..ports import Capabilities, Expansion, FeedbackHit, HybridSearch, SearchFilters, TimeWindow
from .auto import auto_arms
from .config import FusionConfig, RetrievalConfig
from .errors import CapabilityMissingError
from .feedback import FeedbackOptions, FeedbackText, boosts, expansion_terms, rocchio
from .first_pass import concurrently
from .fusion import (
    Fused,
    RescorableT,
    built,
    normalise_by_max,
    order,
    reciprocal_rank_fusion,
    weigh,
    weighted_score_fusion,
)
from .prepared import PreparedQuery, Tuning
from .requests import Mode, RetrieveRequest
from .rerank import RerankStage
from .responses import GRAPH_ARM, AppliedLimits, Inference

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Ranking:
    """A request's ranked candidates before they are cut into pages."""

    mode: Mode
    supported: bool
    hits: list[Hit]
    applied: AppliedLimits
    complete: bool
    missing_capability: str | None = None
    arms: tuple[str, ...] = field(default=())


class RetrievalRouter:
    """Ranks one prepared request: routes its mode to the capability that serves it, then weighs, cuts
    at ``min_score``, orders and reranks. Everything about the request was resolved at the door
    (``PreparedQuery``); cutting the ranking into pages and presenting them is the pager's job."""

    def __init__(
        self, capabilities: Capabilities, context: CallerContext, *, config: RetrievalConfig
    ) -> None:
        self._can = capabilities
        self._context = context
        self._config = config

    def rank(self, query: PreparedQuery, depth: int, *, all_fused: bool = False) -> Ranking:
        """The request's ranking to ``depth``, best first, undiversified; ``complete`` when nothing ranks
        below it. Hybrid fuses each arm's ``max(candidate_depth, depth)`` and builds hits for the first
        ``depth`` fused, or with ``all_fused`` for every fused candidate (a frozen ranking keeps them all:
        ranking deeper instead would fuse other candidates)."""
        mode, tuning, applied = query.mode, query.tuning, query.applied
        if tuning.reranks(mode):
            depth = max(depth, tuning.rerank.depth)  # the pool is the same however deep a page ranks
        filters = SearchFilters(
            kinds=tuple(applied.kinds), statuses=tuple(applied.statuses), size=depth, where=query.where
        )
        notes = Notes()
        try:
            hits, arms, complete = self._dispatch(query, filters, all_fused, notes)
        except CapabilityMissingError as missing:
            return Ranking(mode, False, [], applied, True, missing_capability=str(missing))
        applied = applied.model_copy(
            update={
                "rerank": notes.rerank,
                "expansion_terms": notes.expansion_terms,
                "inferred": notes.inferred,
            }
        )
        return Ranking(mode, True, hits, applied.placed(query.where, arms), complete, arms=arms)

    def _dispatch(
        self, query: PreparedQuery, filters: SearchFilters, all_fused: bool, notes: Notes
    ) -> tuple[list[Hit], tuple[str, ...], bool]:
        ctx, request, tuning = self._context.context_id, query.request, query.tuning
        ranked = partial(self._ranked, query=query, notes=notes)
        match request.mode:
            case Mode.LEXICAL:
                lexical = _require(self._can.lexical, "lexical")
                text = request.text or ""
                if tuning.feedback is None:
                    raw = normalise_by_max(lexical.lexical(ctx, text, filters))
                else:
                    # BM25 ranks exactly: its top hits are the same whatever the depth, so the first
                    # pass asks for just the hits feedback reads.
                    shallow = replace(filters, size=tuning.feedback.docs)
                    first = normalise_by_max(lexical.lexical(ctx, text, shallow))
                    feedback = [FeedbackText(hit.text, hit.score) for hit in first]
                    expansion = self._expansion(text, feedback, tuning.feedback, notes)
                    raw = normalise_by_max(lexical.lexical(ctx, text, filters, expansion))
                return ranked(raw, filters.size, arms=("lexical",))
            case Mode.VECTOR:
                search = _require(self._can.vector, "vector")
                vector = self._query_vector(request)
                options, source = tuning.feedback, self._can.feedback
                if options is None or options.vector_weight <= 0 or source is None:
                    raw = search.vector(ctx, vector, filters)
                else:
                    # The first pass brings its top hits' vectors along: one round trip, no read.
                    top = source.vector_feedback(ctx, vector, replace(filters, size=options.docs))
                    moved = rocchio(vector, [hit.vector for hit in top], options.vector_weight)
                    raw = search.vector(ctx, moved, filters)
                return ranked(raw, filters.size, arms=("vector",))
            case Mode.HYBRID:
                return self._hybrid(query, filters, all_fused, notes)
            case Mode.ENTITY:
                entities = _require(self._can.entity, "entity")
                raw = entities.by_entity(ctx, request.entity_id or "", filters)
                return ranked(raw, filters.size, arms=("entity",))
            case Mode.GRAPH_WALK:
                # The walk is whole (bounded by the node cap), so its ranking is complete at once.
                raw = self._graph_hits([request.entity_id or ""], query.applied.depth, filters, exclude=set())
                return ranked(raw, len(raw) + 1, arms=(GRAPH_ARM,))
            case Mode.TEMPORAL:
                temporal = _require(self._can.temporal, "temporal")
                assert request.window is not None  # guaranteed by RetrieveRequest
                window = TimeWindow(request.window.start, request.window.end)
                raw = temporal.in_window(ctx, window, filters)
                return ranked(raw, filters.size, arms=("temporal",))
            case Mode.AUTO:
                store = _require(self._can.question, "auto")
                depth = max(tuning.fusion.candidate_depth, filters.size)
                terms, vector = self._text_query(request, filters, tuning, notes)
                read = auto_arms(store, ctx, request, vector, filters, depth, terms)
                notes.inferred = read.inferred
                return self._fused(
                    read.arms,
                    query,
                    filters,
                    depth,
                    all_fused,
                    notes,
                    more=read.arm_weights,
                    kinds=read.kind_weights,
                )

    def _hybrid(
        self, query: PreparedQuery, filters: SearchFilters, all_fused: bool, notes: Notes
    ) -> tuple[list[Hit], tuple[str, ...], bool]:
        store = _require(self._can.hybrid, "hybrid")
        request, tuning = query.request, query.tuning
        depth = max(tuning.fusion.candidate_depth, filters.size)
        expansion, vector = self._text_query(request, filters, tuning, notes)
        arms = store.hybrid(
            self._context.context_id, request.text or "", vector, filters, depth, expansion
        ).arms
        fused, arm_names, complete = self._fused(arms, query, filters, depth, all_fused, notes)
        if not request.expand_graph or not fused:
            return fused, arm_names, complete
        # Graph expansion decorates one page: the top_k fused hits, then the graph arm below them. It
        # is one page by definition (complete), since its arm hangs off that page's entities.
        fused = fused[: query.top_k]
        seeds = list(
            dict.fromkeys(m.entity_id for h in fused[: self._config.expansion.seed_hits] for m in h.mentions)
        )
        added = self._graph_hits(seeds, 1, filters, exclude={h.id for h in fused})
        ceiling = min(h.score for h in fused)
        # The graph arm ranks strictly below every fused hit, keeping its own order.
        below = [
            h.model_copy(update={"score": ceiling * h.score * 0.5})
            for h in added[: self._config.expansion.max_added]
        ]
        return fused + below, (*arm_names, GRAPH_ARM), True

    def _fused(
        self,
        arms: Mapping[str, Sequence[Candidate]],
        query: PreparedQuery,
        filters: SearchFilters,
        depth: int,
        all_fused: bool,
        notes: Notes,
        *,
        more: Mapping[str, float] | None = None,
        kinds: Mapping[Kind, float] | None = None,
    ) -> tuple[list[Hit], tuple[str, ...], bool]:
        """``arms`` (each ``depth`` deep) fused (``more`` weighs arms beyond the text arms), weighed by
        kind (``kinds``, else the request's weights), cut at ``min_score``, kept to ``filters.size`` (or
        every fused candidate with ``all_fused``) and reranked; and whether nothing ranks below them."""
        weights = query.request.weights if kinds is None else kinds
        fused = fuse(arms, query.tuning.fusion, more)
        ordered, dropped = self._ordered(fused, weights, query.applied.min_score)
        kept = ordered if all_fused else ordered[: filters.size]
        complete = len(kept) == len(ordered) and (dropped or all(len(hits) < depth for hits in arms.values()))
        return self._reranked(built(kept), query, notes), tuple(arms), complete

    def _text_query(
        self, request: RetrieveRequest, filters: SearchFilters, tuning: Tuning, notes: Notes
    ) -> tuple[Expansion, list[float]]:
        """What the text arms (hybrid's, and auto's, which are hybrid's) search with: the question as
        asked, or with feedback on, its expansion terms and its vector moved towards the first pass's top
        hits (``first_pass`` says how they are found)."""
        options = tuning.feedback
        if options is None:
            return (), self._query_vector(request)
        ctx, text = self._context.context_id, request.text or ""
        source = self._can.feedback
        if options.first_pass == "fused" or source is None:
            vector = self._query_vector(request)
            store = _require(self._can.hybrid, str(request.mode))
            first = self._fused_first_pass(store, text, vector, filters, tuning)
        else:
            if request.vector is None:
                _require(self._can.embedder, "embedder")  # missing: typed-empty before any search
            # BM25's top hits need no embedding: they are searched while the query is embedded.
            search = partial(source.lexical_feedback, ctx, text, replace(filters, size=options.docs))
            first, vector = concurrently(search, partial(self._query_vector, request))
        first = first[: options.docs]
        texts = [FeedbackText(hit.text, hit.score) for hit in first]
        expansion = self._expansion(text, texts, options, notes)
        return expansion, rocchio(vector, [hit.vector for hit in first], options.vector_weight)

    def _fused_first_pass(
        self, store: HybridSearch, text: str, vector: list[float], filters: SearchFilters, tuning: Tuning
    ) -> list[FeedbackHit]:
        """The fused top hits, the best judge of relevance: both arms rank the configured pool (a fused
        top needs each arm's full ranks, and every page of a request gets the same feedback) with ids
        only, then one read brings just the top hits' texts and vectors."""
        assert tuning.feedback is not None
        ctx = self._context.context_id
        arms = store.hybrid(ctx, text, vector, filters, tuning.fusion.candidate_depth, ids_only=True).arms
        top = fuse(arms, tuning.fusion)[: tuning.feedback.docs]
        stored = self._can.vectors.vectors(ctx, [f.id for f in top]) if self._can.vectors and top else {}
        return [
            FeedbackHit(f.id, f.score, stored[f.id].text, stored[f.id].vector) for f in top if f.id in stored
        ]

    def _expansion(
        self, text: str, first: Sequence[FeedbackText], options: FeedbackOptions, notes: Notes
    ) -> list[tuple[str, float]]:
        """Expansion terms from the first pass's top hits (this caller's, under this filter)."""
        if options.weight <= 0:
            return []
        terms = expansion_terms(first[: options.docs], options.terms)
        notes.expansion_terms = [term.term for term in terms]
        return boosts(text, terms, options.weight)

    def _reranked(self, hits: list[Hit], query: PreparedQuery, notes: Notes) -> list[Hit]:
        if not query.tuning.reranks(query.mode):
            return hits
        stage = RerankStage(self._context.context_id, reranker=self._can.reranker, vectors=self._can.vectors)
        reranked, notes.rerank = stage.apply(hits, query.request.text, query.tuning.rerank)
        return reranked

    def _graph_hits(
        self, seeds: Sequence[str], depth: int, filters: SearchFilters, *, exclude: set[str]
    ) -> list[Hit]:
        traversal = _require(self._can.graph, "graph_traversal")
        items = _require(self._can.items, "graph_traversal")
        ctx = self._context.context_id
        steps = walk(
            traversal, self._context, seeds, depth, filters.statuses, node_cap=self._config.expansion.node_cap
        )
        hop_of: dict[str, int] = {}
        for edge, hop in steps:
            hop_of.setdefault(edge.proposition_id, hop)
        wanted = [pid for pid in hop_of if pid not in exclude]
        found = items.get_items(ctx, wanted, where=filters.where)
        hits = []
        for rank, pid in enumerate((p for p in wanted if p in found), start=1):
            hit = found[pid]
            if hit.status not in filters.statuses or (filters.kinds and hit.kind not in filters.kinds):
                continue
            score = (hit.confidence if hit.confidence is not None else 1.0) / hop_of[pid]
            hits.append(
                hit.model_copy(
                    update={
                        "score": score,
                        "signals": {GRAPH_ARM: Signal(rank=rank, score=score)},
                        "found_by": [GRAPH_ARM],
                    }
                )
            )
        return hits

    def _ranked(
        self, raw: Sequence[Hit], asked: int, *, query: PreparedQuery, notes: Notes, arms: tuple[str, ...]
    ) -> tuple[list[Hit], tuple[str, ...], bool]:
        ranked, dropped = self._ordered(raw, query.request.weights, query.applied.min_score)
        return self._reranked(ranked, query, notes), arms, dropped or len(raw) < asked

    @staticmethod
    def _ordered(
        hits: Sequence[RescorableT], weights: Mapping[Kind, float], min_score: float | None
    ) -> tuple[list[RescorableT], bool]:
        """Weighted by kind, ordered, above ``min_score``; and whether ``min_score`` cut the tail
        (everything below a cut hit scores lower still, so the ranking ends there)."""
        ranked = order(weigh(hits, weights))
        if min_score is None:
            return ranked, False
        kept = [h for h in ranked if h.score >= min_score]
        return kept, len(kept) < len(ranked)

    def _query_vector(self, request: RetrieveRequest) -> list[float]:
        if request.vector is not None:
            return [float(v) for v in request.vector]
        return _require(self._can.embedder, "embedder").embed([request.text or ""])[0]


@dataclass(slots=True)
class Notes:
    """What the ranking stages did, for ``applied``."""

    rerank: str | None = None
    expansion_terms: list[str] | None = None
    inferred: list[Inference] | None = None


def fuse(
    arms: Mapping[str, Sequence[Candidate]], fusion: FusionConfig, more: Mapping[str, float] | None = None
) -> list[Fused[Candidate]]:
    """``arms`` fused as ``fusion`` says; ``more`` weighs arms beyond the text arms (auto's)."""
    weights = {**fusion.weights.by_arm(), **(more or {})}
    if fusion.method == "score":
        return weighted_score_fusion(arms, weights, fusion.normalization)
    return reciprocal_rank_fusion(arms, fusion.rank_constant, weights)


def _require(capability: T | None, name: str) -> T:
    if capability is None:
        raise CapabilityMissingError(name)
    return capability
