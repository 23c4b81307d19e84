"""The metrics on hand-computed examples: graded nDCG, ties, duplicates, queries with nothing relevant."""

from __future__ import annotations

import math

import pytest
from retrieval_dev.evaluation.metrics import all_found, mean, ndcg, recall, reciprocal_rank

# Three relevant documents graded 3, 2, 1; "n" was judged and found not relevant.
GRADED = {"a": 3, "b": 2, "c": 1, "n": 0}
IDEAL_DCG = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)  # 3 + 1.26186 + 0.5 = 4.76186


def test_ndcg_of_the_ideal_ranking_is_one() -> None:
    assert ndcg(["a", "b", "c"], GRADED) == pytest.approx(1.0)


def test_graded_ndcg_by_hand() -> None:
    # c (1) at rank 1, n (0) at rank 2, a (3) at rank 3: DCG = 1/1 + 0 + 3/2 = 2.5.
    assert ndcg(["c", "n", "a"], GRADED) == pytest.approx(2.5 / IDEAL_DCG)
    assert ndcg(["c", "n", "a"], GRADED) == pytest.approx(0.52500, abs=1e-5)


def test_gains_are_linear_in_the_grade() -> None:
    # Only the grade-2 document, at rank 1, against an ideal of a single grade-4 document.
    assert ndcg(["b"], {"a": 4, "b": 2}, k=1) == pytest.approx(2 / 4)


def test_ndcg_cuts_at_k_both_the_ranking_and_the_ideal() -> None:
    # k=1: the ideal is grade 3 alone; b at rank 1 gives 2/3, a at rank 2 is cut off.
    assert ndcg(["b", "a"], GRADED, k=1) == pytest.approx(2 / 3)


def test_equal_grades_tie_in_the_ideal_so_their_order_does_not_matter() -> None:
    tied = {"x": 2, "y": 2, "z": 1}
    assert ndcg(["x", "y", "z"], tied) == pytest.approx(1.0)
    assert ndcg(["y", "x", "z"], tied) == pytest.approx(1.0)
    # Swapping documents of different grades does cost: z (1) first, then x, y (2).
    dcg = 1 + 2 / math.log2(3) + 2 / math.log2(4)
    ideal = 2 + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg(["z", "x", "y"], tied) == pytest.approx(dcg / ideal)


def test_a_repeated_document_earns_its_gain_once() -> None:
    # The second "a" is ignored, so b moves up to rank 2: same as the ranking [a, b].
    assert ndcg(["a", "a", "b"], GRADED) == ndcg(["a", "b"], GRADED)
    assert recall(["a", "a"], GRADED) == pytest.approx(1 / 3)


def test_unjudged_and_not_relevant_documents_gain_nothing() -> None:
    assert ndcg(["n", "unjudged"], GRADED) == 0.0
    assert recall(["n", "unjudged"], GRADED) == 0.0
    assert reciprocal_rank(["n", "unjudged"], GRADED) == 0.0


def test_recall_counts_relevant_documents_in_the_top_k() -> None:
    assert recall(["a", "n", "c"], GRADED, k=100) == pytest.approx(2 / 3)
    assert recall(["n", "a", "c"], GRADED, k=2) == pytest.approx(1 / 3)


def test_reciprocal_rank_is_that_of_the_first_relevant_document_within_k() -> None:
    assert reciprocal_rank(["n", "x", "c", "a"], GRADED) == pytest.approx(1 / 3)
    assert reciprocal_rank(["n", "x", "c"], GRADED, k=2) == 0.0


def test_a_query_with_no_relevant_document_has_no_score_and_is_left_out_of_the_mean() -> None:
    nothing_relevant = {"n": 0, "m": 0}
    assert ndcg(["n", "m"], nothing_relevant) is None
    assert recall(["n"], nothing_relevant) is None
    assert reciprocal_rank(["n"], nothing_relevant) is None
    assert ndcg(["a"], {}) is None
    assert mean([1.0, None, 0.5]) == pytest.approx(0.75)
    assert mean([None, None]) is None


def test_all_found_needs_every_relevant_document_in_the_top_k_pages() -> None:
    judged = {"a": 1, "b": 2, "c": 0}
    assert all_found(["a", "x", "a", "b"], judged, 3) == 1.0  # a repeat counts once: b is third
    assert all_found(["a", "x", "y", "b"], judged, 3) == 0.0
    assert all_found(["x"], {"c": 0}, 5) is None
