"""Turning arm results into one ranked list: reciprocal-rank or weighted-score fusion.

Every function here is pure and deterministic: ties break on id, scores stay finite, ids stay unique.
They work on anything with an id, a kind and a score: fusion reads an arm's candidates and keeps only
each one's (rank, score) per arm, so a hybrid search builds the response ``Hit`` of the ``top_k`` it
returns (``built``), not of every candidate of every arm.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, Literal, NamedTuple, Protocol, Self, TypeVar

from ..models.hits import Candidate, Hit, Signal
from ..models.vocabulary import Kind

Normalization = Literal["min_max", "l2"]
SCORED_ARMS = frozenset({"lexical", "vector"})
"""Arms whose scores measure relevance to the question (BM25, cosine): score fusion normalises them. The
other arms (auto's entity, window and valid-now arms) are filters ordered by a text score or by
confidence, so score fusion places them by rank instead (``ARM_RANK_CONSTANT``)."""
ARM_RANK_CONSTANT = 10
"""Score fusion's rank-placed arms count ``(k + 1) / (k + rank)`` (1 for their first): RRF's curve, kept
on the same [0, 1] scale as a normalised score."""


class Scored(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> Kind: ...

    @property
    def score(self) -> float: ...


class Rescorable(Scored, Protocol):
    def rescored(self, score: float) -> Self: ...


ItemT = TypeVar("ItemT", bound=Scored)
ScoredT = TypeVar("ScoredT", bound=Scored)
RescorableT = TypeVar("RescorableT", bound=Rescorable)


class Fused(NamedTuple, Generic[ItemT]):
    """One item as fusion saw it: the fused score, the first arm's candidate, and its (rank, score) in
    each arm that found it, in arm order."""

    id: str
    kind: Kind
    score: float
    item: ItemT
    ranks: Mapping[str, tuple[int, float]]

    @property
    def signals(self) -> dict[str, Signal]:
        return {arm: Signal(rank=rank, score=score) for arm, (rank, score) in self.ranks.items()}

    @property
    def found_by(self) -> list[str]:
        return sorted(self.ranks)

    def rescored(self, score: float) -> Fused[ItemT]:
        return self._replace(score=score)


def reciprocal_rank_fusion(
    arms: Mapping[str, Sequence[ItemT]], rank_constant: int, weights: Mapping[str, float] | None = None
) -> list[Fused[ItemT]]:
    """Fuse ranked arms by (weighted) RRF; an item found by several arms is merged by id and keeps every
    arm's rank and score. Without ``weights`` every arm weighs 1.

    The fused score is normalised by its maximum (first in every arm), so it lies in [0, 1].
    """
    if not arms:
        return []
    weight = {arm: 1.0 if weights is None else float(weights.get(arm, 0.0)) for arm in arms}
    best_possible = sum(weight.values()) / (rank_constant + 1)
    if best_possible <= 0:
        return []
    fused = []
    for hit_id, (item, seen) in _merged(arms).items():
        total = 0.0
        for arm, (rank, _) in seen.items():
            total += weight[arm] / (rank_constant + rank)
        fused.append(Fused(hit_id, item.kind, total / best_possible, item, seen))
    return order(fused)


def weighted_score_fusion(
    arms: Mapping[str, Sequence[ItemT]],
    weights: Mapping[str, float],
    normalization: Normalization = "min_max",
) -> list[Fused[ItemT]]:
    """Fuse arms by a weighted sum of their normalised scores (a hit an arm missed scores 0 there).

    Unlike RRF this keeps how far apart an arm's scores are, not just their order: a clear BM25 winner
    stays clearly ahead. ``min_max`` maps each arm's scores onto [0, 1]; ``l2`` divides them by the
    arm's Euclidean norm (OpenSearch's two normalisation techniques). The fused score is divided by the
    weights' sum, so with min-max it lies in [0, 1].

    An arm that returned fewer candidates than the deepest arm returned everything it matches: what it
    left out scores nothing there, so min-max maps its scores from 0, not from its last candidate (which
    would otherwise count as much as a miss: a rare word's second BM25 match, a two-item focus arm's
    second item). Arms outside ``SCORED_ARMS`` are placed by rank.
    """
    deepest = max((len(items) for items in arms.values()), default=0)
    scale = {
        arm: _normaliser([item.score for item in items], normalization, complete=len(items) < deepest)
        for arm, items in arms.items()
    }
    total_weight = math.fsum(float(w) for w in weights.values()) or 1.0
    fused = []
    for hit_id, (item, seen) in _merged(arms).items():
        total = 0.0
        for arm, (rank, score) in seen.items():
            placed = (
                scale[arm](score)
                if arm in SCORED_ARMS
                else (ARM_RANK_CONSTANT + 1) / (ARM_RANK_CONSTANT + rank)
            )
            total += float(weights.get(arm, 0.0)) * placed
        fused.append(Fused(hit_id, item.kind, total / total_weight, item, seen))
    return order(fused)


def _normaliser(
    scores: Sequence[float], normalization: Normalization, *, complete: bool = False
) -> Callable[[float], float]:
    if normalization == "l2":
        norm = math.sqrt(math.fsum(s * s for s in scores))
        return (lambda s: s / norm) if norm > 0 else (lambda s: 1.0)
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    if complete:
        low = min(low, 0.0)
    return (lambda s: (s - low) / (high - low)) if high > low else (lambda s: 1.0)


def _merged(arms: Mapping[str, Sequence[ItemT]]) -> dict[str, tuple[ItemT, dict[str, tuple[int, float]]]]:
    """Per id, in order of first appearance: its first candidate and its (rank, score) in each arm."""
    merged: dict[str, tuple[ItemT, dict[str, tuple[int, float]]]] = {}
    for arm, items in arms.items():
        for rank, item in enumerate(items, start=1):
            found = merged.get(item.id)
            if found is None:
                merged[item.id] = (item, {arm: (rank, item.score)})
            else:
                found[1].setdefault(arm, (rank, item.score))
    return merged


def built(fused: Sequence[Fused[Candidate]]) -> list[Hit]:
    """The response hits of the fused candidates that are returned, in their order."""
    return [f.item.hit(score=f.score, signals=f.signals, found_by=f.found_by) for f in fused]


def order(hits: Sequence[ScoredT]) -> list[ScoredT]:
    """Score descending, then id; the first occurrence of an id wins."""
    unique: dict[str, ScoredT] = {}
    for hit in hits:
        if math.isfinite(hit.score):
            unique.setdefault(hit.id, hit)
    return sorted(unique.values(), key=lambda h: (-h.score, h.id))
