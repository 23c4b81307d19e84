"""The comparison ``make eval`` prints: ranking configurations side by side on the same queries, each
against the mode's configuration before this round of changes, with a paired randomisation test.

Every configuration is a set of request options (fusion, feedback, rerank) sent to the real handler: the
deployment stays as it is and each row is what a caller asking for it would get. The configurations run
interleaved, query by query, so their latencies are measured under the same load.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ONE_PASS: dict[str, Any] = {
    "feedback": {"enabled": False},
    "rerank": {"method": "none"},
    "fusion": {"preset": "rrf", "rank_constant": 10},
}
"""The one-pass ranking every configuration is tested against: no feedback, no reranking, and hybrid's
arms fused by RRF with k = 10 (the shipped ranking before feedback became the default, issue 28)."""
ISSUE_28 = {"docs": 5, "terms": 20, "weight": 0.8, "vector_weight": 1.0, "first_pass": "lexical"}
"""The feedback issue 28 made the default, tuned on Cranfield's dev half alone."""
RRF_10 = {"preset": "rrf", "rank_constant": 10}
RRF_60 = {"preset": "rrf", "rank_constant": 60}
MIN_MAX = {"preset": "score_min_max"}

LEXICAL, VECTOR, HYBRID = "lexical, one-pass", "vector, one-pass", "hybrid, one-pass (RRF k=10)"
HYBRID_DEFAULT = "hybrid, default (min-max, one pass)"
"""The deployment default's row: no options, so it is whatever the `default` preset is."""
AUTO = "auto (against the hybrid default)"
"""``auto`` as the README recommends it to agents, tested against the hybrid a caller gets by default:
it must never lose to it (issue 68)."""


@dataclass(frozen=True)
class Configuration:
    name: str
    mode: str
    options: Mapping[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    """The configuration it is tested against (None: it is a baseline)."""


def _hybrid(name: str, fusion: Mapping[str, Any], feedback: Mapping[str, Any] | None = None) -> Configuration:
    options = {"rerank": {"method": "none"}, "fusion": dict(fusion)}
    options["feedback"] = dict(feedback) if feedback is not None else {"enabled": False}
    return Configuration(name, "hybrid", options, HYBRID)


LIGHT = {"docs": 5, "terms": 20, "weight": 0.3, "vector_weight": 0.5, "first_pass": "lexical"}
"""Light, selective feedback: the expansion at 0.3 of the query, Rocchio at half weight."""


def rocchio_only(vector_weight: float) -> dict[str, Any]:
    """Feedback that only moves the query vector (no expansion terms), by ``vector_weight``."""
    return {**LIGHT, "weight": 0, "vector_weight": vector_weight}


CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(LEXICAL, "lexical", ONE_PASS),
    Configuration("lexical + PRF 0.8 (issue 28's weight)", "lexical", {"feedback": ISSUE_28}, LEXICAL),
    Configuration("lexical + PRF 0.5", "lexical", {"feedback": {**LIGHT, "weight": 0.5}}, LEXICAL),
    Configuration("lexical + PRF 0.3", "lexical", {"feedback": LIGHT}, LEXICAL),
    Configuration(VECTOR, "vector", ONE_PASS),
    Configuration("vector + Rocchio 0.5", "vector", {"feedback": LIGHT}, VECTOR),
    Configuration("vector + Rocchio 1.0", "vector", {"feedback": rocchio_only(1.0)}, VECTOR),
    Configuration(HYBRID, "hybrid", ONE_PASS),
    _hybrid("hybrid RRF k=60", RRF_60),
    _hybrid("hybrid min-max", MIN_MAX),
    _hybrid("hybrid RRF k=10 + PRF 0.8 + Rocchio 1.0 (issue 28's weights)", RRF_10, ISSUE_28),
    _hybrid("hybrid RRF k=10 + PRF 0.3 + Rocchio 0.5", RRF_10, LIGHT),
    _hybrid("hybrid min-max + PRF 0.3 + Rocchio 0.5", MIN_MAX, LIGHT),
    _hybrid("hybrid min-max + PRF 0.5 + Rocchio 0.5", MIN_MAX, {**LIGHT, "weight": 0.5}),
    _hybrid("hybrid min-max + Rocchio 0.5", MIN_MAX, rocchio_only(0.5)),
    _hybrid("hybrid min-max + Rocchio 0.25", MIN_MAX, rocchio_only(0.25)),
    _hybrid("hybrid min-max + Rocchio 1.0 (the default until 2026-12-05)", MIN_MAX, rocchio_only(1.0)),
    Configuration(HYBRID_DEFAULT, "hybrid", {}, HYBRID),
    Configuration(AUTO, "auto", {}, HYBRID_DEFAULT),
)


def randomisation_p(
    ours: Sequence[float], theirs: Sequence[float], *, rounds: int = 10_000, seed: int = 28
) -> float:
    """Two-sided paired randomisation test of the mean difference: the share of random sign flips of
    the per-query differences whose mean is at least as far from 0 as the observed one (add-one
    smoothed, so never 0). Fixed seed: the same scores always give the same p."""
    differences = [a - b for a, b in zip(ours, theirs, strict=True)]
    if not differences:
        return 1.0
    observed = abs(sum(differences))
    rng = random.Random(seed)
    extreme = 0
    for _ in range(rounds):
        flipped = abs(sum(d if rng.random() < 0.5 else -d for d in differences))
        if flipped >= observed - 1e-12:
            extreme += 1
    return (extreme + 1) / (rounds + 1)
