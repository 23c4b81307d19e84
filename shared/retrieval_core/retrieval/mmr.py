"""Maximal marginal relevance: reorder candidates so each next one is relevant and unlike those before it.

Pure and deterministic. Relevance is the candidates' own score scaled by the best one, similarity the
cosine of their stored vectors; a candidate without a vector is treated as unlike every other. Ties go
to the earlier candidate, so ``lambda_ = 1`` gives back the input order exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def mmr_order(
    relevance: Sequence[float], vectors: Sequence[Sequence[float] | None], lambda_: float
) -> list[tuple[int, float]]:
    """(input index, MMR score when picked) for every candidate, in MMR order.

    Each step picks the candidate maximising ``lambda_ * rel - (1 - lambda_) * max_sim`` where ``rel``
    is its relevance over the best relevance and ``max_sim`` its highest cosine with any picked one."""
    top = max(relevance, default=0.0)
    rel = [r / top if top > 0 else 0.0 for r in relevance]
    units = [_unit(v) for v in vectors]
    closest = [0.0] * len(rel)  # each candidate's highest similarity to a picked one so far
    left = list(range(len(rel)))
    picked: list[tuple[int, float]] = []
    while left:
        best = max(left, key=lambda i: (lambda_ * rel[i] - (1 - lambda_) * closest[i], -i))
        picked.append((best, lambda_ * rel[best] - (1 - lambda_) * closest[best]))
        left.remove(best)
        for i in left:
            closest[i] = max(closest[i], _dot(units[i], units[best]))
    return picked


def _unit(vector: Sequence[float] | None) -> list[float] | None:
    if not vector:
        return None
    norm = math.sqrt(math.fsum(v * v for v in vector))
    return [v / norm for v in vector] if norm > 0 and math.isfinite(norm) else None


def _dot(a: list[float] | None, b: list[float] | None) -> float:
    if a is None or b is None or len(a) != len(b):
        return 0.0
    return math.fsum(x * y for x, y in zip(a, b, strict=True))
