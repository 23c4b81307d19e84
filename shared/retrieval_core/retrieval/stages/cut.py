"""Kind weights and the cut: each candidate's score times its kind's weight, in order, above
``min_score``, and no deeper than the ranking goes (unless it keeps every fused candidate, or its arms
are whole). Before any hit is built: only the kept ones ever are."""

from __future__ import annotations

from dataclasses import replace

from ..fusion import order, weigh
from .base import Job, Pool, Step


def weighed_and_cut(job: Job, pool: Pool) -> Step[Pool]:
    ranked = order(weigh(pool.fused, pool.kind_weights))
    min_score = job.query.applied.min_score
    above = ranked if min_score is None else [f for f in ranked if f.score >= min_score]
    kept = above if job.all_fused or pool.whole else above[: job.size]
    return Step(replace(pool, fused=kept, cut=len(above) < len(ranked), truncated=len(kept) < len(above)))
