"""A request's first page as an unpaged caller sees it: prepared at the door, then paged by a pager with
no paging configured (the ranker's answer, cut to ``top_k`` and presented), over any capabilities."""

from __future__ import annotations

from retrieval_core.context import CallerContext
from retrieval_core.ports import Capabilities
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.modes import MODES
from retrieval_core.retrieval.pager import Page, Pager
from retrieval_core.retrieval.plans import PreparedQuery, prepare
from retrieval_core.retrieval.requests import RetrieveRequest


class Unpaged:
    def __init__(
        self, capabilities: Capabilities, context: CallerContext, *, config: RetrievalConfig
    ) -> None:
        self._context = context
        self._config = config
        self._dimension = None if capabilities.embedder is None else capabilities.embedder.dimension
        self._pager = Pager.unpaged(capabilities, config)

    def prepared(self, request: RetrieveRequest) -> PreparedQuery:
        return prepare(
            request,
            self._context,
            config=self._config,
            dimension=self._dimension,
            open_token=self._pager.open_token,
            plan_of=MODES.specs[request.mode].plan,
        )

    def first_page(self, request: RetrieveRequest) -> Page:
        return self._pager.page(self.prepared(request))
