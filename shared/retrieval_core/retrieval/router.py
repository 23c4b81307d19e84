"""``RetrievalRouter``: one entry for every mode, shared by every entry point.

It clamps the request, checks the store's capabilities with protocol checks, routes the mode to the
capability that serves it, and post-processes (weights, min score, order, diversity). A missing
capability yields a typed-empty result with ``supported: false``: never a scan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ..context import CallerContext
from ..errors import InvalidRequestError
from ..graph.walk import walk
from ..models.hits import Hit, Signal
from ..models.item import Kind, Status
from ..ports import (
    Embedder,
    EntityIndex,
    GraphTraversal,
    HybridSearch,
    ItemReader,
    LexicalSearch,
    SearchFilters,
    TemporalSearch,
    TimeWindow,
    VectorSearch,
)
from .config import RetrievalConfig
from .filters import Filter, resolve
from .fusion import (
    diversify,
    normalise_by_max,
    order,
    reciprocal_rank_fusion,
    weigh,
    weighted_score_fusion,
)
from .requests import Mode, RetrieveRequest

GRAPH_ARM = "graph"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Applied:
    """The limits actually used, after clamping; responses report them."""

    top_k: int
    depth: int
    min_score: float | None
    statuses: tuple[Status, ...]
    kinds: tuple[Kind, ...]
    rank_constant: int
    filter: Filter | None = None


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    mode: Mode
    supported: bool
    hits: list[Hit]
    applied: Applied
    missing_capability: str | None = None
    arms: tuple[str, ...] = field(default=())

    @property
    def filter_applied(self) -> Mapping[str, str]:
        """Per arm, where the filter took effect: inside the backend query, or on the propositions a
        graph walk returned (the walk itself follows every edge)."""
        if self.applied.filter is None:
            return {}
        return {arm: "on_results" if arm == GRAPH_ARM else "in_query" for arm in self.arms}


class CapabilityMissingError(Exception):
    """Internal signal: the store cannot serve this mode. Never leaves the router."""


class RetrievalRouter:
    def __init__(
        self,
        store: object,
        graph: GraphTraversal | None,
        context: CallerContext,
        *,
        embedder: Embedder | None,
        config: RetrievalConfig,
    ) -> None:
        self._store = store
        self._graph = graph
        self._context = context
        self._embedder = embedder
        self._config = config

    def applied(self, request: RetrieveRequest) -> Applied:
        """What the request will use; raises ``FilterNotApplicableError`` for a filter the index cannot
        apply exactly (callers check this before spending any session budget)."""
        return Applied(
            top_k=request.applied_top_k,
            depth=request.applied_depth,
            min_score=None if request.min_score is None else float(request.min_score),
            statuses=tuple(dict.fromkeys(request.statuses)),
            kinds=tuple(dict.fromkeys(request.kinds or ())),
            rank_constant=self._config.fusion.rank_constant,
            filter=None if request.filter is None else resolve(request.filter, self._config.metadata),
        )

    def route(self, request: RetrieveRequest) -> RetrievalResult:
        self._check_vector(request)
        applied = self.applied(request)
        filters = SearchFilters(
            kinds=applied.kinds, statuses=applied.statuses, size=applied.top_k, where=applied.filter
        )
        try:
            hits, arms = self._dispatch(request, filters, applied)
        except CapabilityMissingError as missing:
            return RetrievalResult(request.mode, False, [], applied, missing_capability=str(missing))
        return RetrievalResult(request.mode, True, hits, applied, arms=arms)

    def _dispatch(
        self, request: RetrieveRequest, filters: SearchFilters, applied: Applied
    ) -> tuple[list[Hit], tuple[str, ...]]:
        ctx = self._context.context_id
        match request.mode:
            case Mode.LEXICAL:
                store = self._require(LexicalSearch, "lexical")
                hits = normalise_by_max(store.lexical(ctx, request.text or "", filters))
                return self._finish(hits, request, applied), ("lexical",)
            case Mode.VECTOR:
                store = self._require(VectorSearch, "vector")
                hits = store.vector(ctx, self._query_vector(request), filters)
                return self._finish(hits, request, applied), ("vector",)
            case Mode.HYBRID:
                return self._hybrid(request, filters, applied)
            case Mode.ENTITY:
                store = self._require(EntityIndex, "entity")
                hits = store.by_entity(ctx, request.entity_id or "", filters)
                return self._finish(hits, request, applied), ("entity",)
            case Mode.GRAPH_WALK:
                hits = self._graph_hits([request.entity_id or ""], applied.depth, filters, exclude=set())
                return self._finish(hits, request, applied), (GRAPH_ARM,)
            case Mode.TEMPORAL:
                store = self._require(TemporalSearch, "temporal")
                assert request.window is not None  # guaranteed by RetrieveRequest
                window = TimeWindow(request.window.start, request.window.end)
                return self._finish(store.in_window(ctx, window, filters), request, applied), ("temporal",)

    def _hybrid(
        self, request: RetrieveRequest, filters: SearchFilters, applied: Applied
    ) -> tuple[list[Hit], tuple[str, ...]]:
        store = self._require(HybridSearch, "hybrid")
        vector = self._query_vector(request)
        depth = max(self._config.fusion.candidate_depth, applied.top_k)
        arms = store.hybrid(self._context.context_id, request.text or "", vector, filters, depth).arms
        fusion = self._config.fusion
        if fusion.method == "weighted":
            combined = weighted_score_fusion(arms, fusion.arm_weights)
        else:
            combined = reciprocal_rank_fusion(arms, applied.rank_constant)
        fused = self._finish(combined, request, applied)
        if not request.expand_graph or not fused:
            return fused, tuple(arms)
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
        return fused + below, (*arms, GRAPH_ARM)

    def _graph_hits(
        self, seeds: Sequence[str], depth: int, filters: SearchFilters, *, exclude: set[str]
    ) -> list[Hit]:
        traversal = self._graph if isinstance(self._graph, GraphTraversal) else None
        if traversal is None:
            raise CapabilityMissingError("graph_traversal")
        items = self._require(ItemReader, "graph_traversal")
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

    def _finish(self, hits: Sequence[Hit], request: RetrieveRequest, applied: Applied) -> list[Hit]:
        ranked = order(weigh(hits, request.weights))
        if applied.min_score is not None:
            ranked = [h for h in ranked if h.score >= applied.min_score]
        ranked = ranked[: applied.top_k]
        return diversify(ranked) if request.diversify else ranked

    def _query_vector(self, request: RetrieveRequest) -> list[float]:
        if request.vector is not None:
            return [float(v) for v in request.vector]
        if self._embedder is None:
            raise CapabilityMissingError("embedder")
        return self._embedder.embed([request.text or ""])[0]

    def _check_vector(self, request: RetrieveRequest) -> None:
        if request.vector is not None and self._embedder is not None:
            expected = self._embedder.dimension
            if len(request.vector) != expected:
                raise InvalidRequestError(
                    f"vector: expected {expected} dimensions, got {len(request.vector)}", field="vector"
                )

    def _require(self, capability: type[T], name: str) -> T:
        if not isinstance(self._store, capability):
            raise CapabilityMissingError(name)
        return self._store
