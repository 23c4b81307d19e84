"""The retrieve use case: policy-guarded routing, then an optional context packet of the same hits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context import CallerContext
from ..models.hits import Hit
from ..packing import pack_hits
from ..policy import RetrievalPolicy
from ..ports import Embedder, GraphTraversal
from .config import RetrievalConfig
from .requests import RetrieveRequest
from .responses import AppliedLimits, RetrieveResponse
from .router import RetrievalResult, RetrievalRouter

# Fields that shape the session or the packet, not the question; they never change the dedup key.
NOT_PART_OF_QUESTION = frozenset({"session_id", "session_limit", "pack", "context_id"})


class RetrieveService:
    def __init__(
        self,
        *,
        store: object,
        graph: GraphTraversal | None,
        embedder: Embedder | None,
        policy: RetrievalPolicy,
        config: RetrievalConfig,
    ) -> None:
        self._store = store
        self._graph = graph
        self._embedder = embedder
        self._policy = policy
        self._config = config

    def retrieve(
        self,
        context: CallerContext,
        request: RetrieveRequest,
        *,
        session_id: str | None = None,
        claim_limit: int | None = None,
        principal: str | None = None,
    ) -> RetrieveResponse:
        router = RetrievalRouter(
            self._store, self._graph, context, embedder=self._embedder, config=self._config
        )
        if request.pack is not None:
            # Refuse a packet whose header cannot fit before the policy spends any budget on it.
            pack_hits([], {}, request.pack, request.text)
        routed: list[RetrievalResult] = []

        def execute(_prepared: Mapping[str, Any]) -> list[Hit]:
            routed.append(router.route(request))
            return routed[0].hits

        outcome = self._policy.run(
            question_of(request),
            context_id=context.context_id,
            session_id=session_id or request.session_id,
            claim_limit=claim_limit,
            request_limit=request.session_limit,
            principal=principal,
            execute=execute,
        )
        result = routed[0]
        packet = None
        if request.pack is not None:
            packet = pack_hits(result.hits, outcome.names, request.pack, request.text)
        applied = result.applied
        return RetrieveResponse(
            mode=result.mode,
            supported=result.supported,
            missing_capability=result.missing_capability,
            arms=list(result.arms),
            hits=result.hits,
            applied=AppliedLimits(
                top_k=applied.top_k,
                depth=applied.depth,
                min_score=applied.min_score,
                statuses=list(applied.statuses),
                kinds=list(applied.kinds),
                rank_constant=applied.rank_constant,
            ),
            receipt=outcome.receipt,
            context_packet=packet,
        )


def question_of(request: RetrieveRequest) -> dict[str, Any]:
    """The query as the policy sees it: the question itself, with clamps applied."""
    question = request.model_dump(mode="json", exclude=set(NOT_PART_OF_QUESTION), exclude_none=True)
    question["top_k"] = request.applied_top_k
    question["depth"] = request.applied_depth
    return question
