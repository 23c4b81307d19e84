"""The graph arm: the propositions a breadth-first walk from seed entities reaches, scored by confidence
over hop distance (graph_walk mode's only arm, and hybrid's graph expansion)."""

from __future__ import annotations

from collections.abc import Sequence

from ...graph.walk import WalkStep, walk
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
        reached: dict[str, WalkStep] = {}
        for step in steps:
            reached.setdefault(step.edge.proposition_id, step)
        wanted = [pid for pid in reached if pid not in exclude]
        found = self._items.get_items(job.context_id, wanted, where=filters.where)
        # Ranked in walk order among the items found whose document vouches for the edge that reached
        # them (an edge of another version of the item is not shown beside this text), before the
        # request's statuses and kinds apply.
        current = [found[pid] for pid in wanted if pid in found and found[pid].vouches_for(reached[pid].edge)]
        return [
            _scored(hit, rank, reached[hit.id].hop)
            for rank, hit in enumerate(current, start=1)
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
