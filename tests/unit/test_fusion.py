"""Fusion, weighting, ordering and diversity are pure functions with hand-checked answers."""

from __future__ import annotations

import pytest
from retrieval_core.models.hits import Hit, Signal
from retrieval_core.retrieval.fusion import order, reciprocal_rank_fusion, weighted_score_fusion
from retrieval_core.retrieval.pager import diversify


def hit(hit_id: str, score: float, kind: str = "proposition", arm: str | None = None, rank: int = 1) -> Hit:
    signals = {arm: Signal(rank=rank, score=score)} if arm else {}
    return Hit(
        id=hit_id,
        kind=kind,
        text="t",
        score=score,
        signals=signals,
        status="ACTIVE",
        created_at="2026-01-01T00:00:00Z",
    )


def test_rrf_by_hand() -> None:
    lexical = [hit("a", 9.0, arm="lexical", rank=1), hit("b", 5.0, arm="lexical", rank=2)]
    vector = [hit("b", 0.9, arm="vector", rank=1), hit("c", 0.8, arm="vector", rank=2)]
    fused = reciprocal_rank_fusion({"lexical": lexical, "vector": vector}, rank_constant=60)
    best = 2 / 61
    expected = {"b": (1 / 62 + 1 / 61) / best, "a": (1 / 61) / best, "c": (1 / 62) / best}
    assert [h.id for h in fused] == ["b", "a", "c"]
    for h in fused:
        assert h.score == pytest.approx(expected[h.id])
    b = fused[0]
    assert b.signals["lexical"] == Signal(rank=2, score=5.0)
    assert b.signals["vector"] == Signal(rank=1, score=0.9)
    assert b.found_by == ["lexical", "vector"]


def test_rank_constant_changes_the_spread() -> None:
    arms = {"lexical": [hit("a", 1, arm="lexical", rank=1), hit("b", 1, arm="lexical", rank=2)]}
    tight = reciprocal_rank_fusion(arms, rank_constant=1)
    loose = reciprocal_rank_fusion(arms, rank_constant=1000)
    assert tight[1].score < loose[1].score


def test_weighted_fusion_by_hand() -> None:
    # Min-max per arm: lexical a=1, b=0 (raw 9, 5); vector b=1, c=0 (raw 0.9, 0.8). Weights 0.4 / 0.6.
    lexical = [hit("a", 9.0, arm="lexical", rank=1), hit("b", 5.0, arm="lexical", rank=2)]
    vector = [hit("b", 0.9, arm="vector", rank=1), hit("c", 0.8, arm="vector", rank=2)]
    fused = weighted_score_fusion({"lexical": lexical, "vector": vector}, {"lexical": 0.4, "vector": 0.6})
    assert [(h.id, h.score) for h in fused] == [
        ("b", pytest.approx(0.6)),
        ("a", pytest.approx(0.4)),
        ("c", 0.0),
    ]
    assert fused[0].found_by == ["lexical", "vector"]
    assert fused[0].signals["lexical"] == Signal(rank=2, score=5.0)


def test_weighted_fusion_gives_a_single_candidate_arm_full_marks() -> None:
    fused = weighted_score_fusion({"vector": [hit("a", 0.7, arm="vector")]}, {"lexical": 0.5, "vector": 0.5})
    assert fused[0].score == pytest.approx(0.5)


def test_order_is_score_then_id_and_unique() -> None:
    ordered = order([hit("b", 0.5), hit("a", 0.5), hit("c", 0.9), hit("a", 0.1)])
    assert [h.id for h in ordered] == ["c", "a", "b"]


def test_diversify_interleaves_kinds_by_rank() -> None:
    ranked = order(
        [hit("p1", 0.9), hit("p2", 0.8), hit("p3", 0.7), hit("d1", 0.6, "document"), hit("r1", 0.5, "record")]
    )
    assert [h.id for h in diversify(ranked)] == ["p1", "d1", "r1", "p2", "p3"]
