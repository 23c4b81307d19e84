"""The passage features tried for ``relevance`` (``retrieval_dev/evaluation/passage_study.py``): the share
of the question's IDF mass a passage holds, the AUC that measures how well a signal separates, and the
held-out fit that places 0.4 where each training collection keeps 95% of its relevant hits."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from retrieval_dev.evaluation.calibration import KEEP, THRESHOLD, Observation
from retrieval_dev.evaluation.passage_study import (
    _capped,
    auc,
    coverage,
    fit,
    held_out,
    idf_by_collection,
    terms,
)


def test_terms_drop_stopwords_and_cut_words_to_their_stem() -> None:
    assert terms("The measured heat of the measurements") == {"measur", "heat"}


def test_coverage_is_the_share_of_the_question_s_idf_mass_the_passage_holds() -> None:
    idf = {"rare": 3.0, "common": 1.0}
    assert coverage({"rare", "common"}, {"rare", "other"}, idf) == 0.75
    assert coverage({"rare", "common"}, {"common"}, idf) == 0.25
    assert coverage({"rare", "common"}, {"rare", "common"}, idf) == 1.0
    assert coverage(set(), {"rare"}, idf) == 0.0
    # A term no passage holds weighs as the rarest: a question about it is not covered by the rest.
    assert coverage({"unseen", "common"}, {"common"}, idf) == 0.25


def observation(collection: str, query: str, position: int, text: str, relevant: bool) -> Observation:
    return Observation(
        collection=collection,
        mode="hybrid",
        query_id=query,
        position=position,
        score=1.0 / position,
        signals={},
        relevant=relevant,
        extra={"question": f"question {query}", "id": f"{collection}-{text}", "text": text},
    )


def test_idf_is_counted_over_each_collection_s_distinct_passages() -> None:
    seen = [
        observation("A", "q1", 1, "tide gauge", True),
        observation("A", "q2", 1, "tide gauge", True),  # the same passage again: counted once
        observation("A", "q2", 2, "tide pool", False),
        observation("B", "q1", 1, "gauge", True),
    ]
    idf = idf_by_collection(seen)
    assert idf["A"]["tide"] < idf["A"]["gauge"] == idf["A"]["pool"]
    assert set(idf["B"]) == {"gauge"}


def test_auc_is_the_chance_a_relevant_hit_scores_above_another() -> None:
    assert auc([(True, 0.9), (False, 0.1)]) == 1.0
    assert auc([(True, 0.1), (False, 0.9)]) == 0.0
    assert auc([(True, 0.5), (False, 0.5)]) == 0.5  # ties count half
    assert auc([(True, 0.9), (True, 0.3), (False, 0.5), (False, 0.1)]) == 0.75
    assert auc([(True, 0.9)]) is None


def rows_of(
    collections: Sequence[str], separation: float, seed: int = 5
) -> list[tuple[Observation, dict[str, float]]]:
    """Ten hits a question, a third relevant; ``coverage`` higher on the relevant ones by
    ``separation`` on average, the ranking's score telling nothing."""
    chosen = random.Random(seed)
    rows = []
    for collection in collections:
        for q in range(30):
            for position in range(1, 11):
                relevant = chosen.random() < 0.33
                o = observation(collection, f"q{q}", position, f"p{q}-{position}", relevant)
                features = {
                    "score": chosen.random(),
                    "log_position": math.log(position),
                    "coverage": min(1.0, max(0.0, chosen.gauss(0.3 + separation * relevant, 0.15))),
                    "cosine": chosen.uniform(-0.1, 0.6),
                }
                rows.append((o, features))
    return rows


def test_the_fit_keeps_95_percent_of_each_collection_s_relevant_hits_at_the_threshold() -> None:
    rows = rows_of(["A", "B"], separation=0.3)
    for reordered in (False, True):
        model = fit(rows, ("coverage",), reordered=reordered)
        assert model[0]["coverage"] > 0
        for collection in ("A", "B"):
            values = [
                v
                for o, v in _capped(model, rows, reordered=reordered)
                if o.collection == collection and o.relevant
            ]
            kept = sum(v >= math.log(THRESHOLD / (1 - THRESHOLD)) for v in values) / len(values)
            assert kept >= KEEP


def test_held_out_a_feature_that_separates_drops_half_once_the_top_10_follows_it() -> None:
    rows = rows_of(["A", "B", "C"], separation=0.6)
    reordered = held_out(rows, ("coverage",), reordered=True)
    assert {r.collection for r in reordered} == {"A", "B", "C"}
    for r in reordered:  # held out: half the others dropped, about 95% of the relevant kept
        assert r.irrelevant_dropped is not None and r.irrelevant_dropped > 0.5, r
        assert r.relevant_below is not None and r.relevant_below < 0.1, r
    # In the ranking's order (which the score gives, blind here), the running minimum flattens it.
    in_order = held_out(rows, ("coverage",))
    assert all(r.irrelevant_dropped is not None and r.irrelevant_dropped < 0.2 for r in in_order)
    # A feature that does not separate drops little, however the top 10 is ordered.
    blind = held_out(rows, ("cosine",), reordered=True)
    assert all(r.irrelevant_dropped is not None and r.irrelevant_dropped < 0.3 for r in blind)
