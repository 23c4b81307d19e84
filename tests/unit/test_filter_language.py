"""The filter language without a backend: translation to OpenSearch clauses (placed inside every query,
inside the knn clause for vectors), resolution against declared metadata types, metadata checks at load
time, and the arms passing the filter on and reporting how each arm applied it."""

from __future__ import annotations

import json

import pytest
from fakes_store import InMemoryStore, capabilities_of
from retrieval_core.adapters.opensearch import queries
from retrieval_core.adapters.opensearch.filters import filter_clause
from retrieval_core.adapters.opensearch.index import index_body
from retrieval_core.config import Settings
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.status import status_of
from retrieval_core.loading.parse import LineError, parse_lines
from retrieval_core.models.filters import Filter, FilterNotApplicableError, resolve
from retrieval_core.models.item import Item
from retrieval_core.models.metadata import FieldType
from retrieval_core.ports import SearchFilters
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.requests import RetrieveRequest
from unpaged import Unpaged

SCHEMA = {"amount": FieldType.NUMBER, "due": FieldType.DATE, "pinned": FieldType.BOOLEAN}


def node(raw: dict) -> Filter:
    return Filter.model_validate(raw)


@pytest.mark.parametrize(
    ("raw", "clause"),
    [
        ({"equals": {"key": "kind", "value": "record"}}, {"term": {"kind": "record"}}),
        ({"list_contains": {"key": "mentions.entity_id", "value": "a:b"}}, {"term": {"entity_ids": "a:b"}}),
        (
            {"not_equals": {"key": "metadata.t", "value": "x"}},
            {"bool": {"must_not": [{"term": {"metadata.t": "x"}}]}},
        ),
        (
            {"in": {"key": "mentions.type", "value": ["Team", "Person"]}},
            {"terms": {"mention_types": ["Team", "Person"]}},
        ),
        (
            {"not_in": {"key": "status", "value": ["STALE"]}},
            {"bool": {"must_not": [{"terms": {"status": ["STALE"]}}]}},
        ),
        ({"gte": {"key": "confidence", "value": 0.5}}, {"range": {"confidence": {"gte": 0.5}}}),
        (
            {"starts_with": {"key": "source_ids", "value": "acme:doc"}},
            {"prefix": {"source_ids": {"value": "acme:doc"}}},
        ),
        (
            {"string_contains": {"key": "metadata.t", "value": "a*b?"}},
            {"wildcard": {"metadata.t": {"value": "*a\\*b\\?*"}}},
        ),
        ({"exists": {"key": "valid_to"}}, {"exists": {"field": "valid_to"}}),
        (
            {"none_of": [{"exists": {"key": "valid_to"}}]},
            {"bool": {"must_not": [{"exists": {"field": "valid_to"}}]}},
        ),
    ],
)
def test_each_operator_translates_to_one_clause(raw: dict, clause: dict) -> None:
    assert filter_clause(node(raw)) == clause


def test_the_filter_sits_inside_every_query_and_inside_the_knn_clause() -> None:
    where = node(
        {"any_of": [{"equals": {"key": "kind", "value": "record"}}, {"exists": {"key": "valid_to"}}]}
    )
    clause = filter_clause(where)
    filters = SearchFilters(size=5, where=where)
    assert clause in queries.lexical_body("acme", "x", filters, 5)["query"]["bool"]["filter"]
    knn = queries.knn_body("acme", [0.1, 0.2], filters, 5)["query"]["knn"]["embedding"]
    assert clause in knn["filter"]["bool"]["filter"]
    assert {"term": {"context_id": "acme"}} in knn["filter"]["bool"]["filter"]
    assert clause in queries.entity_body("acme", "acme:e", filters)["query"]["bool"]["filter"]
    assert clause in queries.ids_body("acme", ["acme:x"], where)["query"]["bool"]["filter"]


def test_resolve_types_declared_metadata_and_normalises_dates() -> None:
    raw = {
        "all_of": [
            {"gt": {"key": "metadata.due", "value": "2026-03-01T02:00:00+02:00"}},
            {"lt": {"key": "metadata.amount", "value": 5}},
        ]
    }
    resolved = resolve(node(raw), SCHEMA)
    assert resolved.echo()["all_of"][0] == {"gt": {"key": "metadata.due", "value": "2026-03-01T00:00:00Z"}}


@pytest.mark.parametrize(
    ("raw", "path", "reason"),
    [
        ({"gte": {"key": "metadata.team", "value": "a"}}, "filter.gte", "not declared"),
        (
            {"any_of": [{"exists": {"key": "kind"}}, {"lt": {"key": "metadata.pinned", "value": 1}}]},
            "filter.any_of[1].lt",
            "declared boolean",
        ),
        (
            {"starts_with": {"key": "metadata.amount", "value": "1"}},
            "filter.starts_with",
            "patterns apply to strings",
        ),
        ({"equals": {"key": "metadata.amount", "value": "ten"}}, "filter.equals", "must be a finite number"),
        (
            {"in": {"key": "metadata.due", "value": ["2026-01-01T00:00:00Z", "soon"]}},
            "filter.in.value[1]",
            "ISO-8601",
        ),
        ({"equals": {"key": "metadata.team", "value": 3}}, "filter.equals", "exact string"),
    ],
)
def test_a_leaf_the_index_cannot_apply_names_path_key_and_reason(raw: dict, path: str, reason: str) -> None:
    with pytest.raises(FilterNotApplicableError) as refused:
        resolve(node(raw), SCHEMA)
    body = refused.value.to_body()
    assert (
        body["field"] == path and body["key"] == next(iter(raw.values()))["key"]
        if "key" in next(iter(raw.values()))
        else True
    )
    assert reason in body["reason"]
    assert status_of(refused.value) == 422


def test_loading_reports_a_metadata_value_that_contradicts_its_declared_type_per_line() -> None:
    good = {
        "id": "acme:i-1",
        "context_id": "acme",
        "kind": "record",
        "text": "t",
        "created_at": "2026-01-01T00:00:00Z",
    }
    lines = [
        json.dumps(good | {"metadata": {"amount": 3, "due": "2026-02-01T00:00:00+01:00", "free": {"x": 1}}}),
        json.dumps(good | {"metadata": {"amount": "3"}}),
        json.dumps(good | {"metadata": {"due": ["2026-02-01T00:00:00Z", "2026-02-01"]}}),
        json.dumps(good | {"metadata": {"pinned": 1}}),
    ]
    results = list(parse_lines(lines, metadata=SCHEMA))
    errors = [(r.line, r.field) for r in results if isinstance(r, LineError)]
    assert errors == [(2, "metadata.amount"), (3, "metadata.due[1]"), (4, "metadata.pinned")]


def test_the_mapping_types_declared_metadata_and_keeps_undeclared_keys_exact_strings() -> None:
    mappings = index_body(8, shards=1, replicas=0, refresh_interval="1s", metadata=SCHEMA)["mappings"]
    assert mappings["properties"]["metadata"]["properties"] == {
        "amount": {"type": "double"},
        "due": {"type": "date", "format": "strict_date_optional_time"},
        "pinned": {"type": "boolean"},
    }
    assert mappings["date_detection"] is False
    templates = {next(iter(t)): next(iter(t.values())) for t in mappings["dynamic_templates"]}
    assert {t["mapping"]["type"] for name, t in templates.items() if name != "metadata_object"} == {"keyword"}
    assert templates["metadata_object"]["mapping"]["enabled"] is False


def test_declared_metadata_round_trips_through_the_environment() -> None:
    settings = Settings(metadata_fields={"amount": "number"})
    assert Settings.from_env(settings.to_env()).metadata_fields == {"amount": FieldType.NUMBER}
    with pytest.raises(ValueError, match="metadata key"):
        Settings(metadata_fields={"a.b": "number"})


def test_the_arms_pass_the_filter_to_the_store_and_reports_each_arm() -> None:
    items = [
        Item.model_validate(
            {
                "id": f"acme:p-{n}",
                "context_id": "acme",
                "kind": "proposition",
                "text": "payments team",
                "created_at": "2026-03-01T00:00:00Z",
                "metadata": {"amount": n},
                "embedding": [1.0, float(n)],
            }
        )
        for n in range(6)
    ]
    store = InMemoryStore(items, metadata_types={"amount": "number"})
    config = RetrievalConfig(metadata={"amount": FieldType.NUMBER})
    unpaged = Unpaged(capabilities_of(store), CallerContext("acme"), config=config)
    request = RetrieveRequest.model_validate(
        {
            "mode": "hybrid",
            "text": "payments",
            "vector": [1.0, 0.0],
            "filter": {"gte": {"key": "metadata.amount", "value": 4}},
        }
    )
    result = unpaged.first_page(request)
    assert sorted(h.id for h in result.hits) == ["acme:p-4", "acme:p-5"]
    assert result.applied.filter is not None
    assert result.applied.filter.arms == {"lexical": "in_query", "vector": "in_query"}
