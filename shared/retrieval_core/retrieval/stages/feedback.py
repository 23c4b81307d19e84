"""Pseudo-relevance feedback as a stage: the arms' first pass, then the query they search with moved
towards its top hits (expansion terms for the lexical query, Rocchio for the vector). The arms say how
their first pass is found (``Arms.first_pass``); the options are ``retrieval.feedback``'s.

Expansion is RM3-style: each feedback hit votes for its terms in proportion to the term's share of the
hit's words and to the hit's score; the best ``terms`` are kept with weights that sum to 1. Only the
texts of hits the first pass returned to this caller (same context, same filter) are read, and no corpus
statistics: nothing about other contexts can leak into the expansion. A stop-word list keeps function
words out (without corpus statistics they would otherwise win every vote); BM25's IDF then weighs what
is left.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Sequence
from typing import NamedTuple

from ..feedback import FeedbackText
from .base import Job, SearchQuery, StageNotes, Step

_WORD = re.compile(r"[^\W\d_][^\W_]+")

STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just may me
    might more most must my myself no nor not now of off on once only or other our ours ourselves out
    over own same shall she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up upon very was we were what when where which
    while who whom why will with would you your yours yourself yourselves""".split()  # noqa: SIM905 (a word list reads better as text)
)


def pseudo_relevance_feedback(job: Job, query: SearchQuery) -> Step[SearchQuery]:
    """``query`` moved by the first pass's top hits; as it is without feedback, or for arms that take
    none."""
    options = job.query.tuning.feedback
    if options is None:
        return Step(query)
    first = job.arms.first_pass(job, query, options)
    if first is None:
        return Step(query)
    notes = StageNotes()
    expansion = query.expansion
    if first.texts is not None and options.weight > 0:
        terms = expansion_terms(first.texts[: options.docs], options.terms)
        notes["expansion_terms"] = [term.term for term in terms]
        expansion = boosts(query.text, terms, options.weight)
    vector = first.vector if first.vector is not None else query.vector
    if first.vectors is not None and vector is not None:
        vector = rocchio(vector, first.vectors, options.vector_weight)
    return Step(SearchQuery(query.text, vector, expansion), notes)


class WeightedTerm(NamedTuple):
    term: str
    weight: float


MIN_VOTERS = 2
"""An expansion term must occur in at least this many feedback hits (or in all of them, when fewer have
any words): a word only one hit uses is that hit's, not the topic's. On CACM, whose documents are often a
title alone, single short hits otherwise supply most of the terms (docs/QUALITY.md)."""
ROCCHIO_MIN_COSINE = 0.45
"""Rocchio moves the query only towards the feedback hits whose stored vector has at least this cosine
with the query's: a first-pass hit the embedding finds unrelated is one the first pass was wrong about,
and moving towards it drifts. With none that close, the query is left where it is (docs/QUALITY.md)."""


def expansion_terms(feedback: Sequence[FeedbackText], count: int) -> list[WeightedTerm]:
    """The ``count`` strongest terms of the feedback texts that at least ``MIN_VOTERS`` of them use,
    weights summing to 1 (ties by term)."""
    votes: dict[str, float] = {}
    voters: dict[str, int] = {}
    usable = 0
    for text, score in feedback:
        words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 2]
        if not words or score <= 0:
            continue
        usable += 1
        share = score / len(words)
        for word in words:
            votes[word] = votes.get(word, 0.0) + share
        for word in set(words):
            voters[word] = voters.get(word, 0) + 1
    needed = min(MIN_VOTERS, usable)  # feedback hits that share no word add nothing
    votes = {word: vote for word, vote in votes.items() if voters[word] >= needed}
    best = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[:count]
    total = sum(weight for _, weight in best)
    return [WeightedTerm(term, weight / total) for term, weight in best] if total > 0 else []


def query_words(text: str) -> int:
    """How many words of ``text`` carry meaning (not stop words): RM3 spreads the original query's weight
    over them, so each expansion term's boost is scaled by this count to compare with one of them."""
    return max(1, sum(1 for w in _WORD.findall(text.lower()) if w not in STOP_WORDS))


def boosts(text: str, terms: Sequence[WeightedTerm], weight: float) -> list[tuple[str, float]]:
    """Each expansion term with the boost that gives the expansion ``weight`` of the query beside the
    original text (boost 1)."""
    scale = weight / (1 - weight) * query_words(text)
    return [(term.term, term.weight * scale) for term in terms]


def rocchio(query: Sequence[float], feedback: Sequence[Sequence[float]], weight: float) -> list[float]:
    """``query`` plus ``weight`` times the mean of the feedback vectors that agree with it (cosine at
    least ``ROCCHIO_MIN_COSINE``), scaled back to unit length (the index compares by cosine); the query
    itself when there is nothing to move towards."""
    if not feedback or weight <= 0:
        return list(query)
    dims = len(query)
    usable = [v for v in feedback if len(v) == dims]
    length = _norm(query)
    if not usable or not length > 0:
        return list(query)
    unit = [q / length for q in query]  # a caller's own vector need not be unit length
    usable = [v for v in usable if _cosine(unit, v) >= ROCCHIO_MIN_COSINE]
    if not usable:
        return list(query)
    # Sums per dimension over columns (zip and fsum run in C): no generator step per dimension and hit.
    sums = [math.fsum(column) for column in zip(*usable, strict=True)]
    moved = [u + weight * total / len(usable) for u, total in zip(unit, sums, strict=True)]
    norm = _norm(moved)
    return [x / norm for x in moved] if norm > 0 and math.isfinite(norm) else list(query)


def _norm(vector: Sequence[float]) -> float:
    return math.sqrt(math.fsum(map(operator.mul, vector, vector)))


def _cosine(unit: Sequence[float], vector: Sequence[float]) -> float:
    """The cosine with a unit vector. ``map`` over ``operator.mul`` runs in C: a 384-dimension cosine
    was 385 generator steps in Python, the gate's cost on every hybrid request with feedback."""
    norm = _norm(vector)
    return math.fsum(map(operator.mul, unit, vector)) / norm if norm > 0 else 0.0
