"""Graph expansion (hybrid's ``expand_graph``): one page of fused hits, then the graph arm below it: the
propositions one hop from the entities its top hits mention, strictly below every fused hit and in their
own order. One page by definition (the graph arm hangs off that page's entities): such a request is
never paged."""

from __future__ import annotations

from ...ports import Capabilities
from ..config import GraphExpansionConfig
from ..responses import GRAPH_ARM
from .base import Job, Ranked, Step
from .graph_arm import GraphArm


class GraphExpansion:
    def __init__(self, capabilities: Capabilities, config: GraphExpansionConfig) -> None:
        self._graph = GraphArm(capabilities, config)
        self._config = config

    def __call__(self, job: Job, ranked: Ranked) -> Step[Ranked]:
        if not ranked.hits:  # the pipeline runs this stage only for a plan that expands the graph
            return Step(ranked)
        page = ranked.hits[: job.query.top_k]
        mentioned = (m.entity_id for hit in page[: self._config.seed_hits] for m in hit.mentions)
        added = self._graph.hits(job, list(dict.fromkeys(mentioned)), 1, exclude={h.id for h in page})
        ceiling = min(h.score for h in page)
        below = [
            h.model_copy(update={"score": ceiling * h.score * 0.5}) for h in added[: self._config.max_added]
        ]
        return Step(Ranked(page + below, (*ranked.arms, GRAPH_ARM)))
