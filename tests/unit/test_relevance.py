"""A hit's calibrated ``relevance`` (``retrieval/relevance.py``, computed by the pager): in [0, 1], never
rising down a ranking (within a page, and from one page to the next as the ranking's score descends),
rising with the ranking score and falling with the position; and the fitting tool
(``retrieval eval --calibration``) reads the features the pager reads and places 0.4 where it says."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from retrieval_core.models.hits import Hit
from retrieval_core.retrieval.pager import calibrated, diversify, relevance
from retrieval_core.retrieval.relevance import RELEVANCE, RelevanceModel
from retrieval_dev.evaluation.calibration import (
    FEATURES,
    KEEP,
    THRESHOLD,
    Observation,
    answered_log_odds,
    features,
    fit_model,
)

KINDS = ("document", "record", "proposition")


def hit(hit_id: str, score: float, kind: str = "document") -> Hit:
    return Hit(
        id=hit_id, kind=kind, text="t", score=score, status="ACTIVE", created_at="2026-01-01T00:00:00Z"
    )


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.floats(min_value=-1, max_value=3, allow_nan=False), max_size=30),
    kinds=st.lists(st.sampled_from(KINDS), min_size=30, max_size=30),
    mode=st.sampled_from(["hybrid", "vector", "lexical", "auto", "graph_walk"]),
)
def test_relevance_is_in_0_1_and_never_rises_down_a_page(
    scores: list[float], kinds: list[str], mode: str
) -> None:
    ranked = [hit(f"h{i}", s, kinds[i]) for i, s in enumerate(scores)]  # any order: a reranked one too
    for page, floor in ((calibrated(ranked, mode, 0), 1.0), (calibrated(ranked, mode, 20, floor=0.5), 0.5)):
        values = [h.relevance for h in page]
        assert all(v is not None and 0 <= v <= floor for v in values)
        assert values == sorted(values, reverse=True)  # type: ignore[type-var]


@pytest.mark.parametrize("mode", sorted(RELEVANCE.models))
def test_relevance_falls_down_a_descending_ranking_page_after_page(mode: str) -> None:
    chosen = random.Random(3)
    scores = sorted((chosen.uniform(0, 1.2) for _ in range(60)), reverse=True)
    ranked = [hit(f"h{i}", s) for i, s in enumerate(scores)]
    # Each page of ten computed on its own, from its offset, as a next_token's page is.
    pages = [calibrated(ranked[start : start + 10], mode, start) for start in range(0, 60, 10)]
    values = [h.relevance for page in pages for h in page]
    assert values == sorted(values, reverse=True)  # type: ignore[type-var]
    assert values[0] > values[-1]


@pytest.mark.parametrize("mode", sorted(RELEVANCE.models))
def test_relevance_rises_with_the_score_and_falls_with_the_position(mode: str) -> None:
    model = RELEVANCE.models[mode]
    by_score = [relevance(model, hit("a", s / 10), 3) for s in range(11)]
    by_position = [relevance(model, hit("a", 0.5), p) for p in range(1, 50)]
    assert by_score == sorted(by_score) and by_score[0] < by_score[-1]
    assert by_position == sorted(by_position, reverse=True) and by_position[0] > by_position[-1]


def test_a_model_that_would_rise_down_a_ranking_is_refused() -> None:
    with pytest.raises(ValidationError):
        RelevanceModel(intercept=0.0, score=-1.0, log_position=-0.5, operating_shift=1.0)
    with pytest.raises(ValidationError):
        RelevanceModel(intercept=0.0, score=1.0, log_position=0.5, operating_shift=1.0)


def test_a_hit_keeps_its_relevance_wherever_diversity_places_it() -> None:
    ranked = calibrated([hit("d1", 1.0), hit("d2", 0.9), hit("r1", 0.2, kind="record")], "hybrid", 0)
    shown = diversify(ranked)
    assert [h.id for h in shown] == ["d1", "r1", "d2"]
    assert {h.id: h.relevance for h in shown} == {h.id: h.relevance for h in ranked}


def test_the_fitting_tool_reads_the_features_the_pager_reads() -> None:
    chosen = random.Random(7)
    model = RelevanceModel(intercept=-1.0, score=2.0, log_position=-0.5, operating_shift=0.6)
    assert FEATURES == ("score", "log_position")
    for _ in range(200):
        position, score = chosen.randint(1, 20), chosen.uniform(-0.5, 1.5)
        observed = Observation("c", "hybrid", "q", position, score, {}, relevant=False)
        ((_, log_odds),) = answered_log_odds(model, [observed])
        assert relevance(model, hit("a", score), position) == pytest.approx(
            1 / (1 + math.exp(-log_odds)), abs=1e-4
        )
        assert len(features(observed)) == len(FEATURES)


def _kept(model: RelevanceModel, observations: list[Observation], collection: str) -> float:
    mine = [o for o in observations if o.collection == collection]
    values = [1 / (1 + math.exp(-v)) for o, v in answered_log_odds(model, mine) if o.relevant]
    return sum(v >= THRESHOLD for v in values) / len(values)


def test_the_fit_places_the_threshold_where_every_collection_keeps_95_percent_of_its_relevant_hits() -> None:
    chosen = random.Random(11)
    observations = []
    for collection, share in (("easy", 0.6), ("hard", 0.2)):
        for question in range(60):
            for position in range(1, 11):
                score = max(0.0, 1 - position / 12 + chosen.gauss(0, 0.05))
                relevant = chosen.random() < share * (1.5 - position / 10)
                observations.append(
                    Observation(collection, "hybrid", str(question), position, score, {}, relevant)
                )
    model = fit_model(observations, "hybrid")
    assert model.score > 0 and model.log_position <= 0
    assert all(_kept(model, observations, c) >= KEEP for c in ("easy", "hard"))
    # The least such shift: a little less and some collection keeps less.
    lower = model.model_copy(update={"operating_shift": model.operating_shift - 0.05})
    assert any(_kept(lower, observations, c) < KEEP for c in ("easy", "hard"))
