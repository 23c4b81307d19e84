"""The retrieve use case, top to bottom: the request prepared at the door, admitted by the session
policy, one page ranked, the page completed under the policy (its receipt), then an optional context
packet of the same hits. Every page is its own query to the session policy: a continuation (its
``next_token`` differs from every other page's) is no duplicate, takes one unit of budget and gets its
own receipt.

With an idempotency key the answer (without its packet) is kept, and the same request sent again gets it
back, packed anew when it asks for a packet: a retry after a lost response, or a repeat that only changes
the packet, spends nothing."""

from __future__ import annotations

import json
from typing import Any

from ..context import CallerContext
from ..models.filters import metadata_names
from ..policy import Receipt, Replay, RetrievalPolicy
from ..ports import ContextFieldTypes
from .config import RetrievalConfig
from .modes import MODES, Modes
from .pager import Page, Pager
from .plans import PreparedQuery, prepare
from .requests import RetrieveRequest
from .responses import RetrieveResponse


class RetrieveService:
    def __init__(
        self,
        *,
        policy: RetrievalPolicy,
        pager: Pager,
        config: RetrievalConfig,
        dimension: int | None,
        field_types: ContextFieldTypes | None = None,
        modes: Modes = MODES,
    ) -> None:
        """``dimension``: the embedder's, which a caller's own query vector must have (None: any);
        ``field_types``: the types a context's typed sidecars gave its metadata keys (None: only the
        deployment's declaration types them); ``modes``: the modes served (the pipeline's)."""
        self._policy = policy
        self._pager = pager
        self._config = config
        self._dimension = dimension
        self._field_types = field_types
        self._modes = modes

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
        # Every 4xx of the request itself is raised here, before the policy counts anything or a search
        # runs (a filter naming a key the deployment does not declare reads the context's own types).
        query = prepare(
            request,
            context,
            config=self._config_for(context.context_id, request),
            dimension=self._dimension,
            open_token=self._pager.open_token,
            plan_of=self._modes.specs[request.mode].plan,
        )
        idempotency_key = request.idempotency_key or idempotency_key
        admitted = self._policy.admit(
            query.question,
            context_id=context.context_id,
            session_id=session_id or request.session_id,
            claim_limit=claim_limit,
            request_limit=request.session_limit,
            principal=principal,
            idempotency_key=idempotency_key,
        )
        if isinstance(admitted, Replay):
            response, names = replayed(admitted)
        else:
            try:
                page = self._pager.page(query)
            except BaseException:
                self._policy.abandon(admitted)
                raise
            outcome = self._policy.complete(
                admitted, page.hits, answer=answer_to_keep(page) if idempotency_key else None
            )
            response, names = answered(page, outcome.receipt), outcome.names
        return packed(response, names, query).including(request.include)

    def _config_for(self, context_id: str, request: RetrieveRequest) -> RetrievalConfig:
        """The deployment's config, its metadata types joined by the context's own when the filter names
        a key the deployment does not declare (one mapping read; the deployment's declaration wins)."""
        declared = self._config.metadata
        if self._field_types is None or request.filter is None:
            return self._config
        if metadata_names(request.filter) <= declared.keys():
            return self._config
        own = self._field_types.field_types(context_id)
        return self._config.model_copy(update={"metadata": {**own, **declared}})


def answered(page: Page, receipt: Receipt) -> RetrieveResponse:
    return RetrieveResponse(receipt=receipt, **_answer_fields(page))


def answer_to_keep(page: Page) -> bytes:
    """The answer an idempotent request keeps for its replays: the response less its receipt, which the
    policy keeps beside it (the receipt is known only once the query is counted)."""
    unsent = RetrieveResponse.model_construct(**_answer_fields(page))  # never sent: it has no receipt
    return unsent.model_dump_json(exclude={"receipt"}).encode()


def _answer_fields(page: Page) -> dict[str, Any]:
    return {
        "mode": page.mode,
        "supported": page.supported,
        "missing_capability": page.missing_capability,
        "arms": list(page.arms),
        "hits": page.hits,
        "applied": page.applied,
        "next_token": page.next_token,
        "paging": page.paging,
    }


def replayed(replay: Replay) -> tuple[RetrieveResponse, dict[str, str]]:
    response = RetrieveResponse.model_validate({**json.loads(replay.answer), "receipt": replay.receipt})
    # Each distinct hit has one source name, listed in hit order: the two align one to one.
    ids = dict.fromkeys(hit.id for hit in response.hits)
    return response, dict(zip(ids, replay.receipt.source_ids, strict=True))


def packed(response: RetrieveResponse, names: dict[str, str], query: PreparedQuery) -> RetrieveResponse:
    """The response with the context packet the request asks for, if any."""
    if query.request.pack is None:
        return response
    from ..packing.packer import pack_hits  # only requests that ask for a packet need the packer

    packet = pack_hits(response.hits, names, query.request.pack, query.request.text)
    return response.model_copy(update={"context_packet": packet})
