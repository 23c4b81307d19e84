"""Query bodies of ``auto`` mode: the entity dictionary lookup, and the arms of what a question was read as.

Every body carries the same filter clauses as the hybrid arms (context first, then statuses, kinds and the
caller's filter), so a name is only ever read from, and an arm only ever finds, items the caller could
find with hybrid: inference re-weights within what was asked, never beyond it.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from ...models.page_titles import ABOUT_ROLE
from ...models.vocabulary import Kind
from ...ports import ANSWER_ARM, EDGES_ARM, ENTITY_ARM, VALID_NOW_ARM, WINDOW_ARM, Focus, SearchFilters
from .queries import ID_FIELDS, SOURCE_FIELDS, filter_clauses, window_body

_PAIRED: dict[str, Any] = {"script": {"script": "doc['entity_ids'].size() > 1"}}
"""Items naming more than one entity: an edge's proposition, an answer beside the entity asked about."""

MUST_MATCH_SHARE = "67%"
"""Of the question's other words, how many a member of a must-match arm has to contain (rounded down:
one of one or two, two of three or four ...): one word shared by chance ("2026" in a CRM account of the
named customer) does not make an item about the question. Chosen on the dev half (docs/QUALITY.md)."""

SHARES_WORDS = "shares_words"
"""The name of a must-match arm's word clause: OpenSearch lists it in a hit's ``matched_queries``."""

NAME_ENTRIES = 500
"""Dictionary entries one lookup returns: the names of the items whose names best share the question's
words (a question names a handful of entities; 500 leaves room for the names co-mentioned with them).
Ordered by the best score of an item carrying them, not by how many items do: with entities extracted
from documents, the names common across a corpus outnumbered the pages a question names, and ordered
by count they pushed those out (multi-hop HotpotQA dev, auto R@2 0.735 -> 0.680; back to 0.735 so)."""


def names_body(context_id: str, text: str, filters: SearchFilters) -> dict[str, Any]:
    """The entries of the caller's items whose entity names share a word, or nearly (one or two edits),
    with the question; the linker then decides which of them the question names."""
    return {
        "size": 0,
        "query": {
            "bool": {
                "must": [
                    {"match": {"entity_names": {"query": text, "fuzziness": "AUTO", "prefix_length": 1}}}
                ],
                "filter": filter_clauses(context_id, filters),
            }
        },
        "aggs": {
            "names": {
                "terms": {"field": "entity_name_keys", "size": NAME_ENTRIES, "order": {"best": "desc"}},
                "aggs": {"best": {"max": {"script": {"source": "_score"}}}},
            }
        },
    }


DICTIONARY_PAGE = 10_000
"""Entries one page of a dictionary read returns (a composite aggregation pages through all of them)."""


def dictionary_body(
    context_id: str, *, after: dict[str, Any] | None = None, since: str | None = None
) -> dict[str, Any]:
    """One page of the context's dictionary entries (in key order, after the page ended by ``after``),
    no hit; with ``since``, only those of the items created at or after it."""
    clauses = filter_clauses(context_id)
    if since is not None:
        clauses = [*clauses, {"range": {"created_at": {"gte": since}}}]
    names: dict[str, Any] = {
        "size": DICTIONARY_PAGE,
        "sources": [{"key": {"terms": {"field": "entity_name_keys"}}}],
    }
    if after is not None:
        names["after"] = after
    return {"size": 0, "query": {"bool": {"filter": clauses}}, "aggs": {"names": {"composite": names}}}


def _text_ranked(
    text: str, clauses: list[dict[str, Any]], size: int, *, must_match: bool, ids_only: bool = False
) -> dict[str, Any]:
    """The items ``clauses`` select, best matching ``text`` first (then the most confident): the arm's
    members are decided by what the question was read as, their order by its other words (with none
    left, by confidence alone).

    ``must_match``: only the items sharing most of ``text``'s words are members (``members`` keeps
    them), unless none does: then the arm is every selected item, the most confident first, as a plain
    entity arm is ("What is Alice Chen's role?": none of her items says "role", yet the
    question is about her). Both are answered by this one body: the word clause is named and scores
    alone, so its matches come first and a non-match scores 0."""
    query: dict[str, Any] = {"filter": clauses}
    if text.strip():
        match: dict[str, Any] = {"query": text}
        if must_match:
            match |= {"minimum_should_match": MUST_MATCH_SHARE, "_name": SHARES_WORDS}
        query["should"] = [{"match": {"text": match}}]
    return {
        "size": size,
        "_source": ID_FIELDS if ids_only else SOURCE_FIELDS,
        "query": {"bool": query},
        "sort": ["_score", {"confidence": {"order": "desc", "missing": "_first"}}, {"id": {"order": "asc"}}],
    }


PRESENT = "present"
"""The entity arm's aggregation: which of its entities the caller's items mention (names held in the
function may outlive the last item naming one, or name one only items outside the filter give)."""


def named_by_body(context_id: str, filters: SearchFilters) -> dict[str, Any]:
    """How many of the caller's items (under ``filters``) name each of ``filters.entities``, no hit: how
    specific each entity a walk follows is (a page title hundreds of chunks write is a hub)."""
    return {
        "size": 0,
        "query": {"bool": {"filter": filter_clauses(context_id, filters)}},
        "aggs": {"named_by": _named_by(filters.entities)},
    }


def _named_by(entities: Collection[str]) -> dict[str, Any]:
    """A terms aggregation counting the items that name each of ``entities``."""
    return {"terms": {"field": "entity_ids", "include": list(entities), "size": len(entities)}}


def focus_bodies(
    context_id: str, focus: Focus, filters: SearchFilters, size: int
) -> dict[str, dict[str, Any]]:
    """One body per arm ``focus`` asks for, keyed by arm name, in a fixed order."""
    base = filter_clauses(context_id, filters)
    bodies: dict[str, dict[str, Any]] = {}
    if focus.entity_ids:
        mentions = {"terms": {"entity_ids": list(focus.entity_ids)}}
        bodies[ENTITY_ARM] = _text_ranked(focus.entity_text, [mentions, *base], size, must_match=True) | {
            "aggs": {PRESENT: _named_by(focus.entity_ids)}
        }
        if not filters.kinds or Kind.PROPOSITION in filters.kinds:
            # The propositions that carry the entity's edges: those naming it beside another entity.
            edges: list[dict[str, Any]] = [mentions, {"term": {"kind": str(Kind.PROPOSITION)}}, _PAIRED]
            bodies[EDGES_ARM] = _text_ranked(focus.entity_text, [*edges, *base], size, must_match=False)
        if focus.answer_types:
            # The entities' items that name one of the asked-for type beside them, of any kind.
            typed: list[dict[str, Any]] = [
                mentions,
                {"terms": {"mention_types": list(focus.answer_types)}},
                _PAIRED,
            ]
            bodies[ANSWER_ARM] = _text_ranked(focus.entity_text, [*typed, *base], size, must_match=False)
    if focus.window is not None:
        inside = window_body(context_id, focus.window, filters)["query"]["bool"]
        within = {"bool": {"should": inside["should"], "minimum_should_match": 1}}
        bodies[WINDOW_ARM] = _text_ranked(focus.time_text, [within, *base], size, must_match=True)
    if focus.valid_at is not None:
        bodies[VALID_NOW_ARM] = _text_ranked(
            focus.time_text, [*valid_at(focus.valid_at), *base], size, must_match=True
        )
    return bodies


def members(hits: list[dict[str, Any]], pages: Collection[str] = ()) -> list[dict[str, Any]]:
    """An arm's members among its hits: of a must-match arm, those sharing the question's words when
    any does (they come first), else every hit; of any other arm, every hit. ``pages``: the entities
    the question names whose own page leads the arm: the first chunk *about* each (in the arm's order)
    comes first, sharing a word or not. The question names that page, so the page answers to its name;
    a chunk that only mentions it beside the question's other words is about something else ("Can I
    write my pages in Markdown rather than reST?": the Markdown page, not the quickstart naming
    Markdown among the formats it writes pages in)."""
    sharing = [h for h in hits if SHARES_WORDS in h.get("matched_queries", ())]
    kept = sharing or hits
    led: set[str] = set()
    first: list[dict[str, Any]] = []
    for hit in hits if pages else ():
        mentions = hit.get("_source", {}).get("mentions") or ()
        about = {m.get("entity_id") for m in mentions if m.get("role") == ABOUT_ROLE} & set(pages)
        if about - led:
            first.append(hit)
            led |= about
    placed = {id(hit) for hit in first}
    return [*first, *(hit for hit in kept if id(hit) not in placed)]


def valid_at(moment: datetime) -> list[dict[str, Any]]:
    """Items that state a validity that holds at ``moment`` (an item without one says nothing of now)."""
    at = moment.isoformat()
    return [
        {"range": {"valid_from": {"lte": at}}},
        {
            "bool": {
                "should": [
                    {"range": {"valid_to": {"gte": at}}},
                    {"bool": {"must_not": {"exists": {"field": "valid_to"}}}},
                ],
                "minimum_should_match": 1,
            }
        },
    ]
