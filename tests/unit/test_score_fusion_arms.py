"""Score fusion's two refinements (retrieval/fusion.py): an arm that returned everything it matches is
normalised from 0, and arms without a relevance scale (auto's focus arms) are placed by rank."""

from __future__ import annotations

import pytest
from retrieval_core.retrieval.fusion import ARM_RANK_CONSTANT, weighted_score_fusion
from test_fusion import hit

K = ARM_RANK_CONSTANT


def _scores(arms: dict[str, list[tuple[str, float]]], weights: dict[str, float]) -> dict[str, float]:
    built = {
        arm: [hit(i, s, arm=arm, rank=r) for r, (i, s) in enumerate(items, 1)] for arm, items in arms.items()
    }
    return {f.id: f.score for f in weighted_score_fusion(built, weights)}


def test_full_arms_are_min_max_normalised_as_before() -> None:
    scores = _scores(
        {"lexical": [("a", 9.0), ("b", 5.0), ("c", 1.0)], "vector": [("c", 0.9), ("b", 0.8), ("d", 0.7)]},
        {"lexical": 1.0, "vector": 1.0},
    )
    assert scores == pytest.approx({"a": 0.5, "b": (0.5 + 0.5) / 2, "c": 0.5, "d": 0.0})


def test_an_arm_shorter_than_the_deepest_is_normalised_from_zero() -> None:
    # BM25 matched two items only: its second is half as good as its first, not as bad as a miss.
    scores = _scores(
        {"lexical": [("a", 8.0), ("b", 4.0)], "vector": [("c", 0.9), ("b", 0.85), ("a", 0.8), ("d", 0.7)]},
        {"lexical": 1.0, "vector": 1.0},
    )
    assert scores["b"] == pytest.approx((4.0 / 8.0 + 0.75) / 2)
    assert scores["a"] == pytest.approx((1.0 + 0.5) / 2)


def test_an_arm_outside_the_scored_arms_is_placed_by_rank() -> None:
    # The entity arm's scores (here confidences) say nothing on a relevance scale: its order counts.
    scores = _scores(
        {
            "lexical": [("a", 9.0), ("b", 1.0)],
            "vector": [("b", 0.9), ("a", 0.5)],
            "entity": [("c", 0.99), ("b", 0.98)],
        },
        {"lexical": 1.0, "vector": 1.0, "entity": 0.6},
    )
    total = 2.6
    assert scores["c"] == pytest.approx(0.6 * 1.0 / total)
    assert scores["b"] == pytest.approx((0.0 + 1.0 + 0.6 * (K + 1) / (K + 2)) / total)
