"""The Rocchio gate's cosines in C (``map(operator.mul, ...)``, norms once) give the very vectors the
per-dimension generators gave, so the second pass ranks exactly as before (issue 50)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from retrieval_core.retrieval.stages.feedback import ROCCHIO_MIN_COSINE, rocchio

DIMS = 384


def _generator_rocchio(
    query: Sequence[float], feedback: Sequence[Sequence[float]], weight: float
) -> list[float]:
    """The implementation before the change, verbatim, as the reference."""
    if not feedback or weight <= 0:
        return list(query)
    dims = len(query)
    usable = [v for v in feedback if len(v) == dims]
    length = math.sqrt(math.fsum(q * q for q in query))
    if not usable or not length > 0:
        return list(query)
    unit = [q / length for q in query]
    usable = [v for v in usable if _generator_cosine(unit, v) >= ROCCHIO_MIN_COSINE]
    if not usable:
        return list(query)
    moved = [u + weight * math.fsum(v[i] for v in usable) / len(usable) for i, u in enumerate(unit)]
    norm = math.sqrt(math.fsum(x * x for x in moved))
    return [x / norm for x in moved] if norm > 0 and math.isfinite(norm) else list(query)


def _generator_cosine(unit: Sequence[float], vector: Sequence[float]) -> float:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return math.fsum(u * x for u, x in zip(unit, vector, strict=True)) / norm if norm > 0 else 0.0


def _near(rng: random.Random, query: list[float], spread: float) -> list[float]:
    """A vector around ``query``: its cosine with the query falls on either side of the gate."""
    return [q + rng.gauss(0, spread) for q in query]


def _ranking(query: Sequence[float], documents: Sequence[Sequence[float]]) -> list[int]:
    return sorted(range(len(documents)), key=lambda i: -_generator_cosine(query, documents[i]))


def test_the_moved_vector_and_its_ranking_are_unchanged_on_random_vectors() -> None:
    rng = random.Random(50)
    gated = kept = 0
    for _ in range(200):
        query = [rng.gauss(0, 1) for _ in range(DIMS)]
        feedback = [_near(rng, query, rng.choice((0.5, 1.5, 2.5, 5.0))) for _ in range(rng.randint(1, 10))]
        feedback.append([0.0] * DIMS)  # a zero vector: cosine 0, never kept
        weight = rng.choice((0.5, 1.0, 2.0))

        new, old = rocchio(query, feedback, weight), _generator_rocchio(query, feedback, weight)

        assert new == old  # bit for bit, not approximately
        documents = [_near(rng, query, 3.0) for _ in range(50)]
        assert _ranking(new, documents) == _ranking(old, documents)
        unit = [q / math.sqrt(math.fsum(q * q for q in query)) for q in query]
        agreeing = sum(_generator_cosine(unit, v) >= ROCCHIO_MIN_COSINE for v in feedback)
        gated += agreeing < len(feedback)
        kept += new != query
    # The random sets exercised the gate both ways: some hits dropped, some queries moved, some left.
    assert gated > 0 and 0 < kept < 200
