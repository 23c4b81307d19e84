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

BEFORE: dict[str, Any] = {"feedback": {"enabled": False}, "rerank": {"method": "none"}}
"""The options that reproduce the shipped ranking before feedback became the default (RRF, k = 10)."""


@dataclass(frozen=True)
class Configuration:
    name: str
    mode: str
    options: Mapping[str, Any] = field(default_factory=dict)
    baseline: str | None = None
    """The configuration it is tested against (None: it is a baseline)."""


CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration("lexical, before", "lexical", BEFORE),
    Configuration("lexical, default (+ PRF)", "lexical", {}, "lexical, before"),
    Configuration("vector, before", "vector", BEFORE),
    Configuration("vector, default (+ Rocchio)", "vector", {}, "vector, before"),
    Configuration("hybrid, before (RRF k=10)", "hybrid", BEFORE),
    Configuration(
        "hybrid RRF k=60", "hybrid", {**BEFORE, "fusion": {"rank_constant": 60}}, "hybrid, before (RRF k=10)"
    ),
    Configuration(
        "hybrid RRF vector x2",
        "hybrid",
        {**BEFORE, "fusion": {"preset": "rrf_vector_heavy"}},
        "hybrid, before (RRF k=10)",
    ),
    Configuration(
        "hybrid score min-max",
        "hybrid",
        {**BEFORE, "fusion": {"preset": "score_min_max"}},
        "hybrid, before (RRF k=10)",
    ),
    Configuration(
        "hybrid score l2", "hybrid", {**BEFORE, "fusion": {"preset": "score_l2"}}, "hybrid, before (RRF k=10)"
    ),
    Configuration(
        "hybrid + MMR 0.7",
        "hybrid",
        {**BEFORE, "rerank": {"method": "mmr", "lambda": 0.7}},
        "hybrid, before (RRF k=10)",
    ),
    Configuration(
        "hybrid + lexical PRF only", "hybrid", {"feedback": {"vector_weight": 0}}, "hybrid, before (RRF k=10)"
    ),
    Configuration(
        "hybrid + Rocchio only", "hybrid", {"feedback": {"weight": 0}}, "hybrid, before (RRF k=10)"
    ),
    Configuration("hybrid, default (+ PRF + Rocchio)", "hybrid", {}, "hybrid, before (RRF k=10)"),
    Configuration(
        "hybrid, fused first pass",
        "hybrid",
        {"feedback": {"first_pass": "fused"}},
        "hybrid, before (RRF k=10)",
    ),
    Configuration(
        "hybrid, default + MMR 0.9",
        "hybrid",
        {"rerank": {"method": "mmr", "lambda": 0.9}},
        "hybrid, before (RRF k=10)",
    ),
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
