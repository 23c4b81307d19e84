"""Pseudo-relevance feedback as a stage: the arms' first pass, then the query they search with moved
towards its top hits (expansion terms for the lexical query, Rocchio for the vector). The arms say how
their first pass is found (``Arms.first_pass``); the algorithms are ``retrieval.feedback``'s."""

from __future__ import annotations

from ..feedback import boosts, expansion_terms, rocchio
from .base import Applied, Job, SearchQuery, Step


def pseudo_relevance_feedback(job: Job, query: SearchQuery) -> Step[SearchQuery]:
    """``query`` moved by the first pass's top hits; as it is without feedback, or for arms that take
    none."""
    options = job.query.tuning.feedback
    if options is None:
        return Step(query)
    first = job.arms.first_pass(job, query, options)
    if first is None:
        return Step(query)
    applied = Applied()
    expansion = query.expansion
    if first.texts is not None and options.weight > 0:
        terms = expansion_terms(first.texts[: options.docs], options.terms)
        applied["expansion_terms"] = [term.term for term in terms]
        expansion = boosts(query.text, terms, options.weight)
    vector = first.vector if first.vector is not None else query.vector
    if first.vectors is not None and vector is not None:
        vector = rocchio(vector, first.vectors, options.vector_weight)
    return Step(SearchQuery(query.text, vector, expansion), applied)
