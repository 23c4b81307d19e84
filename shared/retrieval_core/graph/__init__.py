"""The entity graph: shortest paths between two entities (``graph_path``) and the breadth-first walk the
router uses for ``graph_walk`` and hybrid graph expansion. Works only through the GraphTraversal and
ItemReader ports."""

from .models import GraphPath, GraphPathRequest, GraphPathResponse, PathEdge
from .neighbourhood import DEFAULT_NODE_CAP
from .path import graph_path
from .service import GraphPathService
from .walk import WalkStep, walk

__all__ = [
    "DEFAULT_NODE_CAP",
    "GraphPath",
    "GraphPathRequest",
    "GraphPathResponse",
    "GraphPathService",
    "PathEdge",
    "WalkStep",
    "graph_path",
    "walk",
]
