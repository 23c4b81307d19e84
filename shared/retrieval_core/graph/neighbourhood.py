"""The caller's outgoing edges, fetched one whole frontier per port call and kept for the request.

Partition keys already scope every read to the caller's context; this is the second fence: an edge
whose far end or proposition does not carry the caller's prefix (a corrupted row) is dropped here, before
any search, count or response can see it. So is every edge of an entity without that prefix, which is
still queried so that a foreign entity costs exactly what a missing one does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..backend_calls import CallMeter
from ..context import CallerContext
from ..models.hits import Edge
from ..models.vocabulary import Status
from ..ports import GraphTraversal

DEFAULT_NODE_CAP = 5_000


class Neighbourhood:
    def __init__(
        self,
        traversal: GraphTraversal,
        caller: CallerContext,
        statuses: Sequence[Status],
        meter: CallMeter,
    ) -> None:
        self._traversal = traversal
        self._caller = caller
        self._statuses = tuple(statuses)
        self._meter = meter
        self._edges: dict[str, list[Edge]] = {}
        self._discarded: set[str] = set()

    def expand(self, entity_ids: Sequence[str]) -> dict[str, list[Edge]]:
        """Outgoing edges of every entity in the frontier; at most one port call, none if all are known."""
        unknown = [entity for entity in dict.fromkeys(entity_ids) if entity not in self._edges]
        if unknown:
            fetched = self._traversal.neighbours(self._caller.context_id, unknown, self._statuses)
            self._meter.port_called(self._traversal)
            for entity in unknown:
                self._edges[entity] = [e for e in fetched.get(entity, []) if self._owned(entity, e)]
        return {
            entity: [e for e in self._edges[entity] if e.proposition_id not in self._discarded]
            for entity in entity_ids
        }

    def discard(self, proposition_ids: Iterable[str]) -> None:
        """Forget edges carried by propositions that turned out not to exist (stale rows)."""
        self._discarded.update(proposition_ids)

    def _owned(self, entity: str, edge: Edge) -> bool:
        return (
            edge.from_id == entity
            and edge.to_id != entity
            and self._caller.owns(entity)
            and self._caller.owns(edge.to_id)
            and self._caller.owns(edge.proposition_id)
        )
