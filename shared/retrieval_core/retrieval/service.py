"""The retrieve use case: policy-guarded routing, then an optional context packet of the same hits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context import CallerContext
from ..models.hits import Hit
from ..packing import pack_hits
from ..policy import RetrievalPolicy
from ..policy.query import CONTROL_FIELDS
from ..ports import Capabilities
from .config import RetrievalConfig
from .requests import RetrieveRequest
from .responses import RetrieveResponse
from .router import RetrievalResult, RetrievalRouter

# The packet shapes the answer's presentation, not the question; like the policy's control fields it
# never changes the dedup key.
NOT_PART_OF_QUESTION = CONTROL_FIELDS | {"pack"}


class RetrieveService:
    def __init__(
        self,
        *,
        capabilities: Capabilities,
        policy: RetrievalPolicy[Hit],
        config: RetrievalConfig,
    ) -> None:
        self._capabilities = capabilities
        self._policy = policy
        self._config = config

    def retrieve(
        self,
        context: CallerContext,
        request: RetrieveRequest,
        *,
        session_id: str | None = None,
        claim_limit: int | None = None,
    ) -> RetrieveResponse:
        router = RetrievalRouter(self._capabilities, context, config=self._config)
        # Refuse a filter the index cannot apply, or a packet whose header cannot fit, before the policy
        # spends any budget on the request.
        router.resolved_filter(request)
        if request.pack is not None:
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
            execute=execute,
        )
        result = routed[0]
        packet = None
        if request.pack is not None:
            packet = pack_hits(result.hits, outcome.names, request.pack, request.text)
        return RetrieveResponse(
            mode=result.mode,
            supported=result.supported,
            missing_capability=result.missing_capability,
            arms=list(result.arms),
            hits=result.hits,
            applied=result.applied,
            receipt=outcome.receipt,
            context_packet=packet,
        )


def question_of(request: RetrieveRequest) -> dict[str, Any]:
    """The query as the policy sees it: the question itself, with clamps applied."""
    question = request.model_dump(mode="json", exclude=set(NOT_PART_OF_QUESTION), exclude_none=True)
    question["top_k"] = request.applied_top_k
    question["depth"] = request.applied_depth
    return question
