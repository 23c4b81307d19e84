"""Fusion as a stage: the arms' candidates as one ranked pool. Several arms are fused as the request's
fusion options say (``retrieval.fusion``); one arm is its own ranking, scores untouched."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ...models.hits import Candidate
from ..config import FusionConfig
from ..fusion import Fused, reciprocal_rank_fusion, weighted_score_fusion
from .base import Job, Pool, Searched, SingleArm, Step


def fused(job: Job, searched: Searched) -> Step[Pool]:
    """The pool of ``searched``'s candidates, with the kind weights the cut stage applies."""
    arms = searched.arms
    if searched.fuse:
        pool = fuse(arms, job.query.tuning.fusion, searched.arm_weights)
    else:
        pool = [f for name, candidates in arms.items() for f in alone(name, candidates, searched.single)]
    asked = searched.asked
    return Step(
        Pool(
            fused=pool,
            arms=tuple(arms),
            kind_weights=job.plan.weights if searched.kind_weights is None else searched.kind_weights,
            exhausted=asked is None or all(len(candidates) < asked for candidates in arms.values()),
            whole=asked is None,
        )
    )


def fuse(
    arms: Mapping[str, Sequence[Candidate]], fusion: FusionConfig, more: Mapping[str, float] | None = None
) -> list[Fused[Candidate]]:
    """``arms`` fused as ``fusion`` says; ``more`` weighs arms beyond the text arms (auto's)."""
    weights = {"lexical": fusion.weights.lexical, "vector": fusion.weights.vector, **(more or {})}
    if fusion.method == "score":
        return weighted_score_fusion(arms, weights, fusion.normalization)
    return reciprocal_rank_fusion(arms, fusion.rank_constant, weights)


def alone(name: str, candidates: Sequence[Candidate], single: SingleArm) -> list[Fused[Candidate]]:
    """One arm's candidates as its own ranking (``SingleArm`` says how)."""
    if single == "built":
        return [Fused(c.id, c.kind, c.score, c, {}) for c in candidates]
    best = max((c.score for c in candidates), default=0.0) if single == "by_best" else 1.0
    scale = best if best > 0 and math.isfinite(best) else 1.0
    return [
        Fused(c.id, c.kind, c.score / scale, c, {name: (rank, c.score)})
        for rank, c in enumerate(candidates, start=1)
    ]
