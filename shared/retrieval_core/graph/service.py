"""The graph_path use case: shortest chains between two entities of the caller's context."""

from __future__ import annotations

from ..context import CallerContext
from ..ports import GraphTraversal, ItemReader
from .models import GraphPathRequest, GraphPathResponse
from .path import graph_path


class GraphPathService:
    def __init__(self, traversal: GraphTraversal, items: ItemReader, *, node_cap: int) -> None:
        self._traversal = traversal
        self._items = items
        self._node_cap = node_cap

    def find(self, context: CallerContext, request: GraphPathRequest) -> GraphPathResponse:
        return graph_path(self._traversal, self._items, context, request, node_cap=self._node_cap)
