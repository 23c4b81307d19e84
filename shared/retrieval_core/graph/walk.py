"""Breadth-first walk from seed entities, for ``graph_walk`` retrieval and hybrid graph expansion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..backend_calls import CallMeter
from ..context import CallerContext
from ..models.hits import Edge
from ..models.vocabulary import Status
from ..ports import GraphTraversal
from .neighbourhood import DEFAULT_NODE_CAP, Neighbourhood


class WalkStep(NamedTuple):
    edge: Edge
    hop: int
    """1 for edges leaving a seed, 2 for edges leaving their neighbours, and so on."""


def walk(
    traversal: GraphTraversal,
    caller: CallerContext,
    seeds: Sequence[str],
    depth: int,
    statuses: Sequence[Status],
    node_cap: int = DEFAULT_NODE_CAP,
    meter: CallMeter | None = None,
) -> list[WalkStep]:
    """Edges within ``depth`` hops of the seeds, one per proposition, in breadth-first order.

    One port call per level; every entity is expanded at most once, so cycles end the walk. Once more
    than ``node_cap`` entities are known no further level is fetched. Pass ``meter`` to have the calls
    counted into a request's total.
    """
    neighbourhood = Neighbourhood(traversal, caller, statuses, meter or CallMeter(traversal))
    known = dict.fromkeys(seeds)
    frontier = list(known)
    propositions: set[str] = set()
    steps: list[WalkStep] = []
    for hop in range(1, depth + 1):
        if not frontier or len(known) > node_cap:
            break
        adjacency = neighbourhood.expand(frontier)
        next_frontier: list[str] = []
        for node in frontier:
            for edge in adjacency[node]:
                if edge.proposition_id not in propositions:
                    propositions.add(edge.proposition_id)
                    steps.append(WalkStep(edge, hop))
                if edge.to_id not in known:
                    known[edge.to_id] = None
                    next_frontier.append(edge.to_id)
        frontier = next_frontier
    return steps
