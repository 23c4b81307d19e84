"""Bidirectional breadth-first search for every shortest path between two entities.

Both sides expand whole levels (one port call each), the smaller frontier first. The first level at
which the sides meet gives the shortest length, and every shortest path crosses a meeting node, so the
parent maps of both sides enumerate all of them. Edges come from co-mentions and the loader writes both
directions, so the backward side may follow outgoing edges and flip them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..models.hits import Edge
from .neighbourhood import Neighbourhood

Hop = tuple[str, str, tuple[Edge, ...]]
"""(from entity, to entity, the parallel edges between them), oriented away from the side's start."""


@dataclass(slots=True)
class _Side:
    start: str
    depth: int = 0
    distance: dict[str, int] = field(default_factory=dict)
    parents: dict[str, dict[str, list[Edge]]] = field(default_factory=dict)
    frontier: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.distance[self.start] = 0
        self.frontier.append(self.start)

    def advance(self, adjacency: dict[str, list[Edge]]) -> None:
        """Replace the frontier by the next level, recording every shortest parent edge of its nodes."""
        level = self.depth + 1
        discovered: list[str] = []
        for node in self.frontier:
            for edge in adjacency[node]:
                seen_at = self.distance.setdefault(edge.to_id, level)
                if seen_at == level:
                    if edge.to_id not in self.parents:
                        discovered.append(edge.to_id)
                    self.parents.setdefault(edge.to_id, {}).setdefault(node, []).append(edge)
        self.frontier, self.depth = discovered, level

    def hops_to(self, node: str) -> Iterator[list[Hop]]:
        """Every shortest route from the start to ``node``, parents in id order."""
        if node == self.start:
            yield []
            return
        for parent, edges in sorted(self.parents[node].items()):
            for prefix in self.hops_to(parent):
                yield [*prefix, (parent, node, tuple(edges))]


@dataclass(frozen=True, slots=True)
class PathCandidate:
    """One shortest path as an entity sequence; each hop may be carried by several propositions."""

    entity_ids: tuple[str, ...]
    hops: tuple[tuple[Edge, ...], ...]


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    forward: _Side
    backward: _Side
    meeting: tuple[str, ...]
    truncated: bool

    @property
    def nodes_visited(self) -> int:
        return len(self.forward.distance.keys() | self.backward.distance.keys())

    @property
    def hops(self) -> int:
        return self.forward.depth + self.backward.depth

    def candidates(self) -> Iterator[PathCandidate]:
        """Distinct shortest paths, lazily, in a stable order (meeting node, then parent ids)."""
        for node in self.meeting:
            for head in self.forward.hops_to(node):
                for tail in self.backward.hops_to(node):
                    route = head + [_flip(hop) for hop in reversed(tail)]
                    entity_ids = (self.forward.start, *(to for _, to, _ in route))
                    yield PathCandidate(entity_ids=entity_ids, hops=tuple(edges for _, _, edges in route))


def shortest_paths(
    neighbourhood: Neighbourhood, source: str, target: str, max_depth: int, node_cap: int
) -> SearchOutcome:
    """Search until the sides meet, ``max_depth`` hops are explored, a side runs dry or the cap is hit."""
    forward, backward = _Side(source), _Side(target)
    truncated = False
    while forward.frontier and backward.frontier and forward.depth + backward.depth < max_depth:
        if len(forward.distance.keys() | backward.distance.keys()) > node_cap:
            truncated = True
            break
        side, other = (forward, backward) if _smaller_first(forward, backward) else (backward, forward)
        side.advance(neighbourhood.expand(side.frontier))
        meeting = tuple(sorted(node for node in side.frontier if node in other.distance))
        if meeting:
            return SearchOutcome(forward, backward, meeting, truncated=False)
    return SearchOutcome(forward, backward, (), truncated)


def _smaller_first(forward: _Side, backward: _Side) -> bool:
    """Expand the forward side next? The smaller frontier costs fewer queries; ties go forward."""
    return len(forward.frontier) <= len(backward.frontier)


def _flip(hop: Hop) -> Hop:
    start, end, edges = hop
    return end, start, tuple(e.model_copy(update={"from_id": e.to_id, "to_id": e.from_id}) for e in edges)
