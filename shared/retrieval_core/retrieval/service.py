"""The retrieve use case: policy-guarded routing of one page, then an optional context packet of the
same hits. Every page is its own query to the session policy: a continuation (its ``next_token``
differs from every other page's) is no duplicate, takes one unit of budget and gets its own receipt.

With an idempotency key the answer (without its packet) is kept, and the same request sent again gets it
back, packed anew when it asks for a packet: a retry after a lost response, or a repeat that only changes
the packet, spends nothing."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..context import CallerContext
from ..models.hit_parts import omitted_fields
from ..models.hits import Hit
from ..policy import Outcome, Replay, RetrievalPolicy
from ..policy.query import CONTROL_FIELDS
from ..ports import Capabilities
from .config import RetrievalConfig
from .pages import Page, Pager
from .paging import PagingConfig
from .requests import RetrieveRequest
from .responses import RetrieveResponse
from .router import RetrievalRouter

# The packet and the hit parts shape the answer's presentation, not the question; like the policy's
# control fields they never change the dedup key.
NOT_PART_OF_QUESTION = CONTROL_FIELDS | {"pack", "include"}


class RetrieveService:
    def __init__(
        self,
        *,
        capabilities: Capabilities,
        policy: RetrievalPolicy[Hit],
        config: RetrievalConfig,
        pager: Pager | None = None,
    ) -> None:
        self._capabilities = capabilities
        self._policy = policy
        self._config = config
        self._pager = pager or Pager(
            tokens=None, cursors=None, items=None, config=PagingConfig(), clock=lambda: int(time.time())
        )

    def retrieve(
        self,
        context: CallerContext,
        request: RetrieveRequest,
        *,
        session_id: str | None = None,
        claim_limit: int | None = None,
        principal: str | None = None,
        idempotency_key: str | None = None,
    ) -> RetrieveResponse:
        router = RetrievalRouter(self._capabilities, context, config=self._config)
        # Refuse a filter the index cannot apply, or a packet whose header cannot fit, before the policy
        # spends any budget on the request.
        router.resolved_filter(request)
        if request.pack is not None:
            from ..packing.packer import pack_hits  # only requests that ask for a packet need the packer

            pack_hits([], {}, request.pack, request.text)
        # A bad token is refused here too: misuse never reads, never spends budget.
        position = self._pager.position(request, context.context_id)
        pages: list[Page] = []

        def execute(prepared: Mapping[str, Any]) -> list[Hit]:
            pages.append(self._pager.page(router, request, context.context_id, position, prepared))
            return pages[0].hits

        def answer(outcome: Outcome[Hit]) -> RetrieveResponse:
            result = pages[0]
            return RetrieveResponse(
                mode=result.mode,
                supported=result.supported,
                missing_capability=result.missing_capability,
                arms=list(result.arms),
                hits=result.hits,
                applied=result.applied,
                receipt=outcome.receipt,
                next_token=result.next_token,
                paging=result.paging,
            )

        outcome = self._policy.run(
            question_of(request),
            context_id=context.context_id,
            session_id=session_id or request.session_id,
            claim_limit=claim_limit,
            request_limit=request.session_limit,
            principal=principal,
            idempotency_key=request.idempotency_key or idempotency_key,
            keep=lambda kept: answer(kept).model_dump_json().encode(),
            execute=execute,
        )
        if isinstance(outcome, Replay):
            response = RetrieveResponse.model_validate_json(outcome.answer)
            # Each distinct hit has one source name, listed in hit order: the two align one to one.
            ids = dict.fromkeys(hit.id for hit in response.hits)
            names = dict(zip(ids, response.receipt.source_ids, strict=True))
        else:
            response, names = answer(outcome), outcome.names
        if request.pack is not None:
            from ..packing.packer import pack_hits

            packet = pack_hits(response.hits, names, request.pack, request.text)
            response = response.model_copy(update={"context_packet": packet})
        return response.leaving_out(omitted_fields(request.include))


def question_of(request: RetrieveRequest) -> dict[str, Any]:
    """The query as the policy sees it: the question itself, with clamps applied."""
    question = request.model_dump(mode="json", exclude=set(NOT_PART_OF_QUESTION), exclude_none=True)
    question["top_k"] = request.applied_top_k
    question["depth"] = request.applied_depth
    return question
