"""Kind weights and the cut: each candidate's score times its kind's weight, in order, above
``min_score``, and no deeper than the ranking goes (unless it keeps every fused candidate, or its arms
are whole). Before any hit is built: only the kept ones ever are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ...models.vocabulary import Kind
from ..fusion import RescorableT, order
from .base import Job, Pool, Step


def weighed_and_cut(job: Job, pool: Pool) -> Step[Pool]:
    ranked = order(weigh(pool.fused, pool.kind_weights))
    min_score = job.query.applied.min_score
    above = ranked if min_score is None else [f for f in ranked if f.score >= min_score]
    kept = above if job.all_fused or pool.whole else above[: job.size]
    return Step(replace(pool, fused=kept, cut=len(above) < len(ranked), truncated=len(kept) < len(above)))


def weigh(hits: Sequence[RescorableT], weights: Mapping[Kind, float]) -> list[RescorableT]:
    """Multiply each hit's score by its kind's weight (default 1)."""
    if not weights:
        return list(hits)
    return [h.rescored(h.score * float(weights.get(h.kind, 1.0))) for h in hits]
