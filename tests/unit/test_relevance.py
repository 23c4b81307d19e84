"""A hit's calibrated ``relevance`` (``retrieval/relevance.py``, computed by the pager): in [0, 1], never
rising down a page, rising with the ranking score and falling with the position; and the fitting tool
(``retrieval eval --calibration``) reads the features the pager reads and places 0.4 where it says."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_core.models.hits import Hit, Signal
from retrieval_core.retrieval.pager import calibrated, diversify, relevance
from retrieval_core.retrieval.relevance import RELEVANCE, RelevanceModel
from retrieval_dev.evaluation.calibration import (
    KEEP,
    THRESHOLD,
    Observation,
    answered_log_odds,
    features,
    fit_model,
)

KINDS = ("document", "record", "proposition")


def hit(
    hit_id: str,
    score: float,
    *,
    lexical: int | None = None,
    vector: int | None = None,
    kind: str = "document",
) -> Hit:
    signals = {}
    if lexical is not None:
        signals["lexical"] = Signal(rank=lexical, score=10.0 / lexical)
    if vector is not None:
        signals["vector"] = Signal(rank=vector, score=0.9 - vector / 1000)
    return Hit(
        id=hit_id,
        kind=kind,
        text="t",
        score=score,
        signals=signals,
        status="ACTIVE",
        created_at="2026-01-01T00:00:00Z",
    )


ranks = st.one_of(st.none(), st.integers(min_value=1, max_value=300))
hits = st.lists(
    st.tuples(st.floats(min_value=-1, max_value=3, allow_nan=False), ranks, ranks, st.sampled_from(KINDS)),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(found=hits, mode=st.sampled_from(["hybrid", "vector", "lexical", "auto", "graph_walk"]))
def test_relevance_is_in_0_1_and_never_rises_down_a_page(
    found: list[tuple[float, int | None, int | None, str]], mode: str
) -> None:
    ranked = [hit(f"h{i}", s, lexical=lex, vector=vec, kind=k) for i, (s, lex, vec, k) in enumerate(found)]
    for page, floor in ((calibrated(ranked, mode, 0), 1.0), (calibrated(ranked, mode, 20, floor=0.5), 0.5)):
        values = [h.relevance for h in page]
        assert all(v is not None and 0 <= v <= floor for v in values)
        assert values == sorted(values, reverse=True)  # type: ignore[type-var]


@pytest.mark.parametrize("mode", sorted(RELEVANCE.models))
def test_relevance_rises_with_the_score_and_falls_down_the_ranking(mode: str) -> None:
    model, arms = RELEVANCE.models[mode], RELEVANCE.arms[mode]
    for lexical, vector in [(1, 1), (3, 40), (None, 2), (5, None)]:
        by_score = [
            relevance(model, arms, hit("a", s / 10, lexical=lexical, vector=vector), 3) for s in range(11)
        ]
        by_position = [
            relevance(model, arms, hit("a", 0.5, lexical=lexical, vector=vector), p) for p in range(1, 50)
        ]
        assert by_score == sorted(by_score) and by_score[0] < by_score[-1]
        assert by_position == sorted(by_position, reverse=True)


def test_a_hit_keeps_its_relevance_wherever_diversity_places_it() -> None:
    ranked = calibrated([hit("d1", 1.0), hit("d2", 0.9), hit("r1", 0.2, kind="record")], "hybrid", 0)
    shown = diversify(ranked)
    assert [h.id for h in shown] == ["d1", "r1", "d2"]
    assert {h.id: h.relevance for h in shown} == {h.id: h.relevance for h in ranked}
    assert [h.relevance for h in ranked] == sorted((h.relevance or 0 for h in ranked), reverse=True)


def test_the_fitting_tool_reads_the_features_the_pager_reads() -> None:
    chosen = random.Random(7)
    model = RelevanceModel(
        intercept=-1.0,
        score=2.0,
        log_position=-0.5,
        log_lexical_rank=-0.2,
        lexical_missed=-0.7,
        log_vector_rank=-0.3,
        vector_missed=-0.9,
        operating_shift=0.6,
    )
    for _ in range(200):
        lexical = chosen.choice([None, chosen.randint(1, 100)])
        vector = chosen.choice([None, chosen.randint(1, 100)])
        position, score = chosen.randint(1, 20), chosen.uniform(-0.5, 1.5)
        signals = {arm: [rank, 1.0] for arm, rank in (("lexical", lexical), ("vector", vector)) if rank}
        observed = Observation("c", "hybrid", "q", position, score, signals, relevant=False)
        ((_, log_odds),) = answered_log_odds(model, "hybrid", [observed])
        pager = relevance(
            model, RELEVANCE.arms["hybrid"], hit("a", score, lexical=lexical, vector=vector), position
        )
        assert pager == pytest.approx(1 / (1 + math.exp(-log_odds)), abs=1e-4)
        assert len(features(observed, RELEVANCE.arms["hybrid"])) == len(RelevanceModel.model_fields) - 2


def test_the_fit_places_the_threshold_where_every_collection_keeps_95_percent_of_its_relevant_hits() -> None:
    chosen = random.Random(11)
    observations = []
    for collection, share in (("easy", 0.6), ("hard", 0.2)):
        for question in range(60):
            for position in range(1, 11):
                score = max(0.0, 1 - position / 12 + chosen.gauss(0, 0.1))
                relevant = chosen.random() < share * (1.5 - position / 10)
                signals = {"lexical": [position, 1.0], "vector": [chosen.randint(1, 30), 0.8]}
                observations.append(
                    Observation(collection, "hybrid", str(question), position, score, signals, relevant)
                )
    model = fit_model(observations, "hybrid")
    assert model.score > 0 and model.log_position <= 0
    for collection in ("easy", "hard"):
        mine = [o for o in observations if o.collection == collection]
        values = [1 / (1 + math.exp(-v)) for o, v in answered_log_odds(model, "hybrid", mine) if o.relevant]
        kept = sum(v >= THRESHOLD for v in values) / len(values)
        assert kept >= KEEP
    # The least such shift: without its last bit, some collection would keep less.
    lower = model.model_copy(update={"operating_shift": model.operating_shift - 0.05})
    assert any(
        sum(
            1 / (1 + math.exp(-v)) >= THRESHOLD
            for o, v in answered_log_odds(lower, "hybrid", [o for o in observations if o.collection == c])
            if o.relevant
        )
        / sum(o.relevant for o in observations if o.collection == c)
        < KEEP
        for c in ("easy", "hard")
    )
