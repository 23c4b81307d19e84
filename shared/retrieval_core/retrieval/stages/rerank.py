"""The rerank stage in the pipeline: the top of the ranking reordered by the request's reranker
(``retrieval.rerank``); the pipeline runs it only when ``Tuning.reranks`` (a reranker is asked for
and the mode has relevance to rerank by)."""

from __future__ import annotations

from dataclasses import replace

from ...ports import Capabilities
from ..rerank import RerankStage
from .base import Job, Ranked, StageNotes, Step


class Reranking:
    """Built once with the deployment's reranker and vector reads."""

    def __init__(self, capabilities: Capabilities) -> None:
        self._stage = RerankStage(reranker=capabilities.reranker, vectors=capabilities.vectors)

    def __call__(self, job: Job, ranked: Ranked) -> Step[Ranked]:
        tuning = job.query.tuning  # the pipeline runs this stage only when it reranks
        hits, note = self._stage.apply(job.context_id, ranked.hits, job.plan.text, tuning.rerank)
        return Step(replace(ranked, hits=hits), StageNotes(rerank=note))
