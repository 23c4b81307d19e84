"""The why_explain use case: an item's lineage in the caller's context."""

from __future__ import annotations

from ..context import CallerContext
from ..ports import ItemReader, LineageReader
from .explain import why_explain
from .models import WhyExplainRequest, WhyExplainResponse


class WhyExplainService:
    def __init__(self, lineage: LineageReader, items: ItemReader) -> None:
        self._lineage = lineage
        self._items = items

    def explain(self, context: CallerContext, request: WhyExplainRequest) -> WhyExplainResponse:
        return why_explain(self._lineage, self._items, context, request)
