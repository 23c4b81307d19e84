"""The multi-collection table and the rule that picks the default from it (evaluation/suite.py)."""

from __future__ import annotations

from retrieval_dev.evaluation.compare import Configuration
from retrieval_dev.evaluation.suite import Scores, choose, rows, table

BASE = Configuration("one-pass", "hybrid")
STEADY = Configuration("steady", "hybrid", {"x": 1}, "one-pass")
SPIKY = Configuration("spiky", "hybrid", {"x": 2}, "one-pass")
LEXICAL = Configuration("lexical thing", "lexical", {}, None)
QUERIES = [f"q{i}" for i in range(12)]


def _scores() -> Scores:
    base = {q: 0.5 for q in QUERIES}
    return {
        "A": {
            "one-pass": base,
            "steady": {q: 0.52 for q in QUERIES},  # +0.02 on every query: significant
            "spiky": {q: 0.7 for q in QUERIES},  # +0.2
            "lexical thing": base,
        },
        "B": {
            "one-pass": base,
            "steady": {q: 0.51 for q in QUERIES},
            "spiky": {q: 0.4 for q in QUERIES},  # -0.1 on every query: a significant loss
            "lexical thing": base,
        },
    }


def test_each_row_has_per_collection_scores_their_changes_and_the_worst_of_them() -> None:
    steady, spiky = rows(_scores(), [BASE, STEADY, SPIKY])[1:]

    assert {c: round(s, 6) for c, s in steady.ndcg.items()} == {"A": 0.52, "B": 0.51}
    assert round(steady.mean, 3) == 0.515
    assert steady.worst is not None and steady.worst[0] == "B"
    assert round(steady.worst[1].delta, 3) == 0.01 and not steady.worst[1].significant_loss
    assert spiky.worst is not None and spiky.worst[0] == "B" and spiky.worst[1].significant_loss
    assert spiky.changes["A"].p < 0.01


def test_the_rule_takes_the_best_worst_case_not_the_best_score_on_one_collection() -> None:
    table_rows = rows(_scores(), [BASE, STEADY, SPIKY, LEXICAL])

    chosen = choose(table_rows)

    assert chosen is not None and chosen.configuration is STEADY  # spiky's mean is higher: 0.55
    assert rows(_scores(), [SPIKY])[0].mean > chosen.mean


def test_with_every_change_a_loss_the_one_pass_ranking_is_kept() -> None:
    scores = _scores()
    scores["A"]["steady"] = {q: 0.45 for q in QUERIES}

    chosen = choose(rows(scores, [BASE, STEADY, SPIKY]))

    assert chosen is not None and chosen.configuration is BASE


def test_the_table_shows_changes_p_values_and_significant_losses() -> None:
    printed = table(rows(_scores(), [BASE, STEADY, SPIKY])).splitlines()

    assert printed[0] == "| configuration | A | B | mean | worst change | significant losses |"
    assert printed[2] == "| one-pass | 0.500 | 0.500 | 0.500 | baseline |  |"
    cells = [c.strip() for c in printed[4].split("|")[1:-1]]
    assert cells[0] == "spiky" and cells[1].startswith("0.700 (+0.200, p ")
    assert cells[4:] == ["-0.100 (B)", "B"]
