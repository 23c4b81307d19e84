"""Ranking metrics on graded judgments: nDCG@k, Recall@k and MRR@k, one query at a time.

Conventions (stated once, here, and in docs/QUALITY.md):
- A ranking is a sequence of document ids, best first; a repeated id counts only where it first appears.
- Judgments map document id to a grade; grade > 0 is relevant, 0 (or unjudged) is not.
- nDCG uses linear gains (gain = grade) and the 1/log2(rank + 1) discount, as trec_eval's ``ndcg_cut``
  does; the ideal ranking is every judged document sorted by grade, so ties among equal grades cannot
  change it.
- A query with no relevant document has no defined score: every metric returns ``None`` for it, and
  ``mean`` leaves it out (reports count how many were left out).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Judgments = Mapping[str, int]


def _distinct(ranking: Sequence[str], k: int) -> list[str]:
    """The first ``k`` distinct ids: a system cannot earn a gain twice by repeating a document."""
    return list(dict.fromkeys(ranking))[:k]


def _relevant(judgments: Judgments) -> set[str]:
    return {doc for doc, grade in judgments.items() if grade > 0}


def _dcg(grades: Iterable[int]) -> float:
    return sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1))


def ndcg(ranking: Sequence[str], judgments: Judgments, k: int = 10) -> float | None:
    """Discounted cumulative gain of the top ``k``, divided by the best achievable; in [0, 1]."""
    if not _relevant(judgments):
        return None
    gains = [max(judgments.get(doc, 0), 0) for doc in _distinct(ranking, k)]
    ideal = sorted((g for g in judgments.values() if g > 0), reverse=True)[:k]
    return _dcg(gains) / _dcg(ideal)


def recall(ranking: Sequence[str], judgments: Judgments, k: int = 100) -> float | None:
    """Share of the relevant documents found in the top ``k``."""
    relevant = _relevant(judgments)
    if not relevant:
        return None
    return len(relevant.intersection(_distinct(ranking, k))) / len(relevant)


def all_found(ranking: Sequence[str], judgments: Judgments, k: int = 5) -> float | None:
    """1 when every relevant document is in the top ``k``, else 0 (HippoRAG's all-found: both ends of a
    chain, every page of a comparison)."""
    relevant = _relevant(judgments)
    if not relevant:
        return None
    return 1.0 if relevant <= set(_distinct(ranking, k)) else 0.0


def reciprocal_rank(ranking: Sequence[str], judgments: Judgments, k: int = 10) -> float | None:
    """1 / rank of the first relevant document in the top ``k``, or 0 when none is there."""
    relevant = _relevant(judgments)
    if not relevant:
        return None
    for rank, doc in enumerate(_distinct(ranking, k), start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0


def mean(scores: Iterable[float | None]) -> float | None:
    """Mean over the queries that have a score; ``None`` when none has."""
    defined = [s for s in scores if s is not None]
    return sum(defined) / len(defined) if defined else None
