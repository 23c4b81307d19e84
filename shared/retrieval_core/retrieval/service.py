"""The retrieve use case: a request prepared at the door, one page under the session policy, then an
optional context packet of the same hits. Every page is its own query to the session policy: a
continuation (its ``next_token`` differs from every other page's) is no duplicate, takes one unit of
budget and gets its own receipt.

With an idempotency key the answer (without its packet) is kept, and the same request sent again gets it
back, packed anew when it asks for a packet: a retry after a lost response, or a repeat that only changes
the packet, spends nothing."""

from __future__ import annotations

from ..context import CallerContext
from ..models.filters import metadata_names
from ..models.hit_parts import omitted_fields
from ..models.hits import Hit
from ..policy import Outcome, Replay, RetrievalPolicy
from ..ports import ContextFieldTypes
from .config import RetrievalConfig
from .pager import Page, Pager
from .prepared import PreparedQuery, prepare
from .requests import RetrieveRequest
from .responses import RetrieveResponse


class RetrieveService:
    def __init__(
        self,
        *,
        policy: RetrievalPolicy[Hit],
        pager: Pager,
        config: RetrievalConfig,
        dimension: int | None,
        field_types: ContextFieldTypes | None = None,
    ) -> None:
        """``dimension``: the embedder's, which a caller's own query vector must have (None: any);
        ``field_types``: the types a context's typed sidecars gave its metadata keys (None: only the
        deployment's declaration types them)."""
        self._policy = policy
        self._pager = pager
        self._config = config
        self._dimension = dimension
        self._field_types = field_types

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
        # Every 4xx is raised here, before the policy counts anything or a backend is read.
        query = prepare(
            request,
            context,
            config=self._config_for(context.context_id, request),
            dimension=self._dimension,
            open_token=self._pager.open_token,
        )
        outcome = self._policy.run(
            query.question,
            context_id=context.context_id,
            session_id=session_id or request.session_id,
            claim_limit=claim_limit,
            request_limit=request.session_limit,
            principal=principal,
            idempotency_key=request.idempotency_key or idempotency_key,
            keep=lambda kept: answered(kept).model_dump_json().encode(),
            execute=lambda _: self._pager.page(query),
            evidence=lambda page: page.hits,
        )
        response, names = (
            replayed(outcome) if isinstance(outcome, Replay) else (answered(outcome), outcome.names)
        )
        return packed(response, names, query).leaving_out(omitted_fields(request.include))

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


def answered(outcome: Outcome[Page]) -> RetrieveResponse:
    page = outcome.result
    return RetrieveResponse(
        mode=page.mode,
        supported=page.supported,
        missing_capability=page.missing_capability,
        arms=list(page.arms),
        hits=page.hits,
        applied=page.applied,
        receipt=outcome.receipt,
        next_token=page.next_token,
        paging=page.paging,
    )


def replayed(replay: Replay) -> tuple[RetrieveResponse, dict[str, str]]:
    response = RetrieveResponse.model_validate_json(replay.answer)
    # Each distinct hit has one source name, listed in hit order: the two align one to one.
    ids = dict.fromkeys(hit.id for hit in response.hits)
    return response, dict(zip(ids, response.receipt.source_ids, strict=True))


def packed(response: RetrieveResponse, names: dict[str, str], query: PreparedQuery) -> RetrieveResponse:
    """The response with the context packet the request asks for, if any."""
    if query.request.pack is None:
        return response
    from ..packing.packer import pack_hits  # only requests that ask for a packet need the packer

    packet = pack_hits(response.hits, names, query.request.pack, query.request.text)
    return response.model_copy(update={"context_packet": packet})
