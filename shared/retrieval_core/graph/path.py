"""``graph_path``: the shortest chains of propositions that connect two entities of the caller's context.

An unknown entity, a foreign one and an unreachable one all give the same answer (``found`` false), with
counts that depend only on the caller's own graph. An edge whose proposition the item store does not
return (stale or corrupted) does not exist: paths through it are dropped and the search is rerun over
the cached neighbourhood without it, so a longer but real path is still found.
"""

from __future__ import annotations

from itertools import islice

from ..backend_calls import CallMeter
from ..context import CallerContext
from ..models.hits import Edge, Hit
from ..ports import GraphTraversal, ItemReader
from .models import (
    AppliedPathLimits,
    GraphPath,
    GraphPathRequest,
    GraphPathResponse,
    PathEdge,
    PathExploration,
)
from .neighbourhood import DEFAULT_NODE_CAP, Neighbourhood
from .search import PathCandidate, shortest_paths

MAX_SEARCH_ROUNDS = 3
"""Searches per request; a later round runs only after stale propositions were found on a path. When the
rounds run out before enough real paths are confirmed, the answer says ``truncated``."""


def graph_path(
    traversal: GraphTraversal,
    items: ItemReader,
    caller: CallerContext,
    request: GraphPathRequest,
    *,
    node_cap: int = DEFAULT_NODE_CAP,
) -> GraphPathResponse:
    meter = CallMeter(traversal, items)
    neighbourhood = Neighbourhood(traversal, caller, request.statuses, meter)
    answer = _Answer(request, meter)
    if request.from_id == request.to_id:
        exists = bool(neighbourhood.expand([request.from_id])[request.from_id])
        paths = [GraphPath(entity_ids=[request.from_id], edges=[])] if exists else []
        return answer.build(paths, truncated=False, nodes_visited=1, hops=0)

    texts: dict[str, Hit] = {}
    rounds = 0
    while True:
        rounds += 1
        outcome = shortest_paths(neighbourhood, request.from_id, request.to_id, request.max_depth, node_cap)
        candidates = list(islice(outcome.candidates(), request.max_paths))
        wanted = {e.proposition_id for c in candidates for hop in c.hops for e in hop} - texts.keys()
        if wanted:
            texts.update(items.get_items(caller.context_id, sorted(wanted)))
            meter.port_called(items)
        stale = wanted - texts.keys()
        neighbourhood.discard(stale)
        paths = [path for c in candidates if (path := _resolve(c, texts)) is not None]
        settled = not stale or len(paths) == request.max_paths
        if settled or rounds == MAX_SEARCH_ROUNDS:
            return answer.build(paths, outcome.truncated or not settled, outcome.nodes_visited, outcome.hops)


class _Answer:
    def __init__(self, request: GraphPathRequest, meter: CallMeter) -> None:
        self._request = request
        self._meter = meter

    def build(
        self, paths: list[GraphPath], truncated: bool, nodes_visited: int, hops: int
    ) -> GraphPathResponse:
        return GraphPathResponse(
            found=bool(paths),
            truncated=truncated,
            paths=paths,
            explored=PathExploration(
                nodes_visited=nodes_visited,
                hops=hops,
                backend_calls=self._meter.total,
                round_trips=self._meter.round_trips,
            ),
            applied=AppliedPathLimits(max_depth=self._request.max_depth, max_paths=self._request.max_paths),
        )


def _resolve(candidate: PathCandidate, texts: dict[str, Hit]) -> GraphPath | None:
    """The path with the best known proposition on each hop, or None if some hop has none left."""
    edges: list[PathEdge] = []
    for parallel in candidate.hops:
        # A proposition's edge counts only where its document vouches for it (not another version's).
        known = [e for e in parallel if e.proposition_id in texts and texts[e.proposition_id].vouches_for(e)]
        if not known:
            return None
        best = min(known, key=_preference)
        edges.append(
            PathEdge(
                from_id=best.from_id,
                to_id=best.to_id,
                proposition_id=best.proposition_id,
                text=texts[best.proposition_id].text,
                confidence=best.confidence,
                status=best.status,
            )
        )
    return GraphPath(entity_ids=list(candidate.entity_ids), edges=edges)


def _preference(edge: Edge) -> tuple[float, str]:
    """Most confident first (unknown confidence last), then by id so answers are stable."""
    return (-(edge.confidence if edge.confidence is not None else -1.0), edge.proposition_id)
