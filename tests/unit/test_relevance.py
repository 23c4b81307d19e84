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
from retrieval_core.models.hits import Hit, Signal
from retrieval_core.retrieval.pager import calibrated, diversify, relevance
from retrieval_core.retrieval.relevance import FEATURES, RELEVANCE, RelevanceModel
from retrieval_dev.evaluation.calibration import (
    KEEP,
    THRESHOLD,
    Observation,
    answered_log_odds,
    features,
    fit_model,
    reliability,
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
    model = RelevanceModel(
        intercept=-1.0, score=2.0, log_position=-0.5, similarity=1.5, both_arms=0.7, operating_shift=0.6
    )
    assert FEATURES == ("score", "log_position", "similarity", "both_arms")
    for _ in range(200):
        position, score = chosen.randint(1, 20), chosen.uniform(-0.5, 1.5)
        arms = chosen.choice([(), ("lexical",), ("vector",), ("lexical", "vector")])
        signals = {arm: [chosen.randint(1, 50), chosen.uniform(0, 1)] for arm in arms}
        observed = Observation("c", "hybrid", "q", position, score, signals, relevant=False)
        seen = hit("a", score).model_copy(
            update={"signals": {arm: Signal(rank=int(r), score=v) for arm, (r, v) in signals.items()}}
        )
        ((_, log_odds),) = answered_log_odds(model, [observed])
        assert relevance(model, seen, position) == pytest.approx(1 / (1 + math.exp(-log_odds)), abs=1e-4)
        assert len(features(observed)) == len(FEATURES)


def test_a_feature_the_fit_finds_counting_against_relevance_is_left_out() -> None:
    """The vector arm's similarity made to fall as relevance rises: the fit leaves it at 0 (a weight of
    the wrong sign is refused by the model), and keeps the others."""
    chosen = random.Random(5)
    observations = []
    for question in range(80):
        for position in range(1, 11):
            relevant = chosen.random() < 0.5 * (1.2 - position / 10)
            similarity = 0.9 - 0.3 * relevant + chosen.gauss(0, 0.05)
            score = max(0.0, 1 - position / 12 + chosen.gauss(0, 0.05))
            observations.append(
                Observation(
                    "c", "hybrid", str(question), position, score, {"vector": [1, similarity]}, relevant
                )
            )
    model = fit_model(observations, "hybrid")
    assert model.similarity == 0 and model.score > 0


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


def test_the_reliability_row_says_what_a_threshold_of_the_collection_s_own_would_trade() -> None:
    """Twenty relevant hits valued 0.50..0.69 and ten others 0.30..0.75: a threshold keeping 95% of the
    relevant (0.51) drops the others below it; the least threshold dropping half of the others (above
    0.55, the fifth lowest: 0.56) keeps the relevant at or above it."""
    relevant = [0.50 + i / 100 for i in range(20)]
    others = [0.30, 0.35, 0.40, 0.45, 0.55, 0.60, 0.65, 0.70, 0.72, 0.75]
    scored = [
        (Observation("c", "hybrid", str(n), 1, 0.0, {}, relevant=flag), value)
        for n, (flag, value) in enumerate([(True, v) for v in relevant] + [(False, v) for v in others])
    ]
    row = reliability(scored, "c", "hybrid", 0.0)
    assert row.best_dropped == 4 / 10  # 0.30, 0.35, 0.40, 0.45 fall below 0.51
    assert row.half_threshold == pytest.approx(0.56) and row.kept_at_half == pytest.approx(14 / 20)
    assert row.irrelevant_dropped == 2 / 10 and row.relevant_below == 0  # at THRESHOLD 0.4
