"""Query bodies. Every body filters on the caller's context *inside* the query (for k-NN: inside the
``knn`` clause, so OpenSearch's efficient filtering picks the k nearest among the caller's own items)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...models.filters import Filter
from ...models.vocabulary import Kind
from ...ports import Expansion, SearchFilters, TimeWindow
from .documents import HEADING_FIELD
from .filters import filter_clause
from .index import KNN_SPACE, VECTOR_FIELD

KNN_EF_SEARCH = 100
"""The default beam per k-NN query (``Settings.opensearch_knn_ef_search``): lucene's own default (k) is
narrow for filtered searches; 100 keeps recall near exact."""

# Only what a response hit holds (``models.hits.hit_of``): never the vector (large, says nothing to a
# caller), nor the fields only queries read (entity ids, mention types, contradicts); the document's
# context stays for the mention check. A hybrid search reads two arms of these (the preset's
# ``candidate_depth`` each) to return a page.
SOURCE_FIELDS = {
    "includes": [
        "id",
        "context_id",
        "kind",
        "status",
        "text",
        "confidence",
        "created_at",
        "mentions",
        "source_ids",
        "grounding.uri",
        "grounding.chunk_id",
        "grounding.start",
        "grounding.end",
        "grounding.page",
        "grounding.section",
        "grounding.anchor",
        "grounding.version",
        "grounding.text",
        "grounding.path",
        "grounding.local_path",
        "grounding.url",
        "supersedes",
        "metadata",
        "valid_from",
        "valid_to",
    ]
}


ID_FIELDS = {"includes": ["id", "kind"]}
"""A feedback first pass: fusion needs ids, kinds and scores, and its candidates are never returned."""

FEEDBACK_FIELDS = {"includes": ["id", "text", VECTOR_FIELD]}
"""A feedback first pass that reads its few top hits directly: what the expansion terms and Rocchio's
moved vector are made of."""

BY_CONFIDENCE = [{"confidence": {"order": "desc", "missing": "_first"}}, {"id": {"order": "asc"}}]
"""Entity and temporal hits score their confidence (none counts as 1.0) and rank by score, then id: the
backend must cut its top n in that same order, or a deeper request would rank a different prefix."""


def filter_clauses(
    context_id: str, filters: SearchFilters | None = None, where: Filter | None = None
) -> list[dict[str, Any]]:
    """The context first, then statuses, kinds and the caller's filter: all ANDed, all in the query."""
    clauses: list[dict[str, Any]] = [{"term": {"context_id": context_id}}]
    if filters is not None:
        if filters.statuses:
            clauses.append({"terms": {"status": [str(s) for s in filters.statuses]}})
        if filters.kinds:
            clauses.append({"terms": {"kind": [str(k) for k in filters.kinds]}})
        if filters.entities:
            clauses.append({"terms": {"entity_ids": list(filters.entities)}})
        where = where or filters.where
    if where is not None:
        clauses.append(filter_clause(where))
    return clauses


def lexical_body(
    context_id: str,
    text: str,
    filters: SearchFilters,
    size: int,
    expansion: Expansion = (),
    *,
    fields: dict[str, Any] = SOURCE_FIELDS,
) -> dict[str, Any]:
    """BM25 on ``text``; with ``expansion``, also on each (term, boost): a document matching any of
    them qualifies, and the filters stay the same. ``fields``: what each hit's source carries."""
    match: dict[str, Any] = {"match": {"text": {"query": text}}}
    if expansion:
        terms = [{"match": {"text": {"query": term, "boost": boost}}} for term, boost in expansion]
        match = {"bool": {"should": [match, *terms], "minimum_should_match": 1}}
    return {
        "size": size,
        "_source": fields,
        "query": {"bool": {"must": [match], "filter": filter_clauses(context_id, filters)}},
    }


def knn_body(
    context_id: str,
    vector: Sequence[float],
    filters: SearchFilters,
    size: int,
    *,
    fields: dict[str, Any] = SOURCE_FIELDS,
    ef_search: int = KNN_EF_SEARCH,
    oversample: int = 1,
) -> dict[str, Any]:
    """The filtered k-NN query; ``oversample`` > 1 asks the graph for that many times ``size`` and
    orders them by their exact cosine (``exact_rescore``) before the first ``size`` are kept."""
    k = size * oversample
    body: dict[str, Any] = {
        "size": size,
        "_source": fields,
        "query": {
            "knn": {
                VECTOR_FIELD: {
                    "vector": list(vector),
                    "k": k,
                    "filter": {"bool": {"filter": filter_clauses(context_id, filters)}},
                    "method_parameters": {"ef_search": max(ef_search, k)},
                }
            }
        },
    }
    if oversample > 1:
        body["rescore"] = exact_rescore(vector, k)
    return body


def exact_rescore(vector: Sequence[float], window: int) -> dict[str, Any]:
    """The top ``window`` hits of a quantized graph scored again on the float vectors the index also
    keeps (the k-NN plugin's ``knn_score``, on the same scale as the k-NN query's score): quantization
    error reorders near neighbours, and this puts them back (docs/SCALING.md)."""
    script = {
        "source": "knn_score",
        "lang": "knn",
        "params": {"field": VECTOR_FIELD, "query_value": list(vector), "space_type": KNN_SPACE},
    }
    return {
        "window_size": window,
        "query": {
            "rescore_query": {"script_score": {"query": {"match_all": {}}, "script": script}},
            "query_weight": 0.0,
            "rescore_query_weight": 1.0,
        },
    }


def entity_body(context_id: str, entity_id: str, filters: SearchFilters) -> dict[str, Any]:
    """Items mentioning the entity; the most confident first."""
    return {
        "size": filters.size,
        "_source": SOURCE_FIELDS,
        "query": {
            "bool": {"filter": [{"term": {"entity_ids": entity_id}}, *filter_clauses(context_id, filters)]}
        },
        "sort": BY_CONFIDENCE,
    }


def window_body(context_id: str, window: TimeWindow, filters: SearchFilters) -> dict[str, Any]:
    """Items created in the window, or whose validity window overlaps it (inclusive bounds); the most
    confident first."""
    start, end = window.start.isoformat(), window.end.isoformat()
    valid_overlaps = {
        "bool": {
            "filter": [{"range": {"valid_from": {"lte": end}}}],
            "should": [
                {"range": {"valid_to": {"gte": start}}},
                {"bool": {"must_not": {"exists": {"field": "valid_to"}}}},
            ],
            "minimum_should_match": 1,
        }
    }
    return {
        "size": filters.size,
        "_source": SOURCE_FIELDS,
        "query": {
            "bool": {
                "filter": filter_clauses(context_id, filters),
                "should": [{"range": {"created_at": {"gte": start, "lte": end}}}, valid_overlaps],
                "minimum_should_match": 1,
            }
        },
        "sort": BY_CONFIDENCE,
    }


def ids_body(context_id: str, ids: Sequence[str], where: Filter | None = None) -> dict[str, Any]:
    """The caller's items among ``ids`` that match ``where``, whatever their status (lineage shows
    superseded items too)."""
    return {
        "size": len(ids),
        "_source": SOURCE_FIELDS,
        "query": {
            "bool": {"filter": [{"ids": {"values": list(ids)}}, *filter_clauses(context_id, where=where)]}
        },
    }


DERIVED_FIELDS = ["entity_ids", "mention_types", "entity_names", "entity_name_keys", HEADING_FIELD]
"""Index fields computed from an item's mentions and grounding (``documents.document_of``), not part of
the item."""


def naming_body(context_id: str, names: Sequence[str], name_key: str, limit: int) -> dict[str, Any]:
    """The caller's document chunks holding one of ``names`` as a phrase and not mentioning the entry
    ``name_key`` (``entity_name_keys``): the chunks indexed before a page whose title they name
    (``chunks_naming``)."""
    return {
        "size": limit,
        "_source": {"excludes": DERIVED_FIELDS},
        "query": {
            "bool": {
                "filter": [*filter_clauses(context_id), {"term": {"kind": str(Kind.DOCUMENT)}}],
                "should": [{"match_phrase": {"text": name}} for name in names],
                "minimum_should_match": 1,
                "must_not": [{"term": {"entity_name_keys": name_key}}],
            }
        },
    }


def mentioning_body(context_id: str, name_key: str, limit: int) -> dict[str, Any]:
    """The caller's document chunks mentioning the entry ``name_key`` (``entity_name_keys``)."""
    return {
        "size": limit,
        "_source": {"excludes": DERIVED_FIELDS},
        "query": {
            "bool": {
                "filter": [
                    *filter_clauses(context_id),
                    {"term": {"kind": str(Kind.DOCUMENT)}},
                    {"term": {"entity_name_keys": name_key}},
                ]
            }
        },
    }


def vectors_body(context_id: str, ids: Sequence[str]) -> dict[str, Any]:
    """The embeddings of the caller's items among ``ids`` (the context filter inside the query)."""
    return {
        "size": len(ids),
        "_source": {"includes": ["id", "text", HEADING_FIELD, VECTOR_FIELD]},
        "query": {"bool": {"filter": [{"ids": {"values": list(ids)}}, *filter_clauses(context_id)]}},
    }
