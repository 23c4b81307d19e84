"""The graph arm: the propositions a breadth-first walk from seed entities reaches, scored by confidence
over hop distance (graph_walk mode's only arm, and hybrid's graph expansion)."""

from __future__ import annotations

from collections.abc import Sequence

from ...graph.walk import walk
from ...models.hits import Hit, Signal
from ...ports import Capabilities
from ..config import GraphExpansionConfig
from ..errors import CapabilityMissingError
from ..responses import GRAPH_ARM
from .base import Job


class GraphArm:
    def __init__(self, capabilities: Capabilities, config: GraphExpansionConfig) -> None:
        self._traversal = capabilities.graph
        self._items = capabilities.items
        self._node_cap = config.node_cap

    def check(self) -> None:
        if self._traversal is None or self._items is None:
            raise CapabilityMissingError("graph_traversal")

    def hits(self, job: Job, seeds: Sequence[str], depth: int, *, exclude: set[str]) -> list[Hit]:
        """The walk's propositions (not ``exclude``d) that match the job's filters, nearest first."""
        self.check()
        assert self._traversal is not None and self._items is not None
        filters = job.filters
        steps = walk(
            self._traversal, job.query.context, seeds, depth, filters.statuses, node_cap=self._node_cap
        )
        hop_of: dict[str, int] = {}
        for edge, hop in steps:
            hop_of.setdefault(edge.proposition_id, hop)
        wanted = [pid for pid in hop_of if pid not in exclude]
        found = self._items.get_items(job.context_id, wanted, where=filters.where)
        # Ranked in walk order among the items found, before the request's statuses and kinds apply.
        ranked = enumerate((found[pid] for pid in wanted if pid in found), start=1)
        return [
            _scored(hit, rank, hop_of[hit.id])
            for rank, hit in ranked
            if hit.status in filters.statuses and (not filters.kinds or hit.kind in filters.kinds)
        ]


def _scored(hit: Hit, rank: int, hop: int) -> Hit:
    score = (hit.confidence if hit.confidence is not None else 1.0) / hop
    return hit.model_copy(
        update={
            "score": score,
            "signals": {GRAPH_ARM: Signal(rank=rank, score=score)},
            "found_by": [GRAPH_ARM],
        }
    )
