"""Turning arm results into one ranked list: reciprocal-rank or weighted-score fusion, per-kind weights,
diversity.

Every function here is pure and deterministic: ties break on id, scores stay finite, ids stay unique.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..models.hits import Hit, Signal
from ..models.item import Kind


def reciprocal_rank_fusion(arms: Mapping[str, Sequence[Hit]], rank_constant: int) -> list[Hit]:
    """Fuse ranked arms by RRF; a hit found by several arms is merged by id and keeps every signal.

    The fused score is normalised by its maximum (first in every arm), so it lies in [0, 1].
    """
    if not arms:
        return []
    best_possible = len(arms) / (rank_constant + 1)
    merged: dict[str, Hit] = {}
    totals: dict[str, float] = {}
    signals: dict[str, dict[str, Signal]] = {}
    for arm, hits in arms.items():
        for rank, hit in enumerate(hits, start=1):
            merged.setdefault(hit.id, hit)
            totals[hit.id] = totals.get(hit.id, 0.0) + 1.0 / (rank_constant + rank)
            signals.setdefault(hit.id, {})[arm] = hit.signals.get(arm) or Signal(rank=rank, score=hit.score)
    fused = [
        merged[hit_id].model_copy(
            update={
                "score": totals[hit_id] / best_possible,
                "signals": signals[hit_id],
                "found_by": sorted(signals[hit_id]),
            }
        )
        for hit_id in merged
    ]
    return order(fused)


def weighted_score_fusion(arms: Mapping[str, Sequence[Hit]], weights: Mapping[str, float]) -> list[Hit]:
    """Fuse arms by a weighted sum of their min-max normalised scores (a hit an arm missed scores 0 there).

    Unlike RRF this keeps how far apart an arm's scores are, not just their order: a clear BM25 winner
    stays clearly ahead. With weights summing to 1 the fused score lies in [0, 1].
    """
    merged: dict[str, Hit] = {}
    totals: dict[str, float] = {}
    signals: dict[str, dict[str, Signal]] = {}
    for arm, hits in arms.items():
        weight = float(weights.get(arm, 0.0))
        scores = [h.score for h in hits]
        low, high = min(scores, default=0.0), max(scores, default=0.0)
        for rank, hit in enumerate(hits, start=1):
            unit = (hit.score - low) / (high - low) if high > low else 1.0
            merged.setdefault(hit.id, hit)
            totals[hit.id] = totals.get(hit.id, 0.0) + weight * unit
            signals.setdefault(hit.id, {})[arm] = hit.signals.get(arm) or Signal(rank=rank, score=hit.score)
    return order(
        [
            merged[hit_id].model_copy(
                update={
                    "score": totals[hit_id],
                    "signals": signals[hit_id],
                    "found_by": sorted(signals[hit_id]),
                }
            )
            for hit_id in merged
        ]
    )


def normalise_by_max(hits: Sequence[Hit]) -> list[Hit]:
    """Scale raw scores (e.g. BM25) into [0, 1] relative to the best hit; raw scores stay in signals."""
    top = max((h.score for h in hits), default=0.0)
    if top <= 0 or not math.isfinite(top):
        return list(hits)
    return [h.model_copy(update={"score": h.score / top}) for h in hits]


def weigh(hits: Sequence[Hit], weights: Mapping[Kind, float]) -> list[Hit]:
    """Multiply each hit's score by its kind's weight (default 1)."""
    if not weights:
        return list(hits)
    return [h.model_copy(update={"score": h.score * float(weights.get(h.kind, 1.0))}) for h in hits]


def order(hits: Sequence[Hit]) -> list[Hit]:
    """Score descending, then id; the first occurrence of an id wins."""
    unique: dict[str, Hit] = {}
    for hit in hits:
        if math.isfinite(hit.score):
            unique.setdefault(hit.id, hit)
    return sorted(unique.values(), key=lambda h: (-h.score, h.id))


def diversify(hits: Sequence[Hit]) -> list[Hit]:
    """Interleave kinds round-robin by rank: each round takes every kind's next best hit, best first."""
    queues: dict[Kind, list[Hit]] = {}
    for hit in hits:
        queues.setdefault(hit.kind, []).append(hit)
    result: list[Hit] = []
    depth = 0
    while len(result) < len(hits):
        round_hits = [queue[depth] for queue in queues.values() if depth < len(queue)]
        result += sorted(round_hits, key=lambda h: (-h.score, h.id))
        depth += 1
    return result
