"""Filters on the sample corpus through the real handlers: bad filters are 422s naming the path inside the
filter, a filter the index cannot apply is a 422 naming the key and the reason (and spends no session
budget), the response echoes the normalised filter, entity and temporal apply it in their queries, and
graph walks apply it to the propositions they return."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus_stack import call, retrieve
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_dev.cli.events import api_event, session_event
from stack_state import SAMPLE_CORPUS

from dev.sample import known
from tests.filter_oracle import matches

ITEMS = {
    item.id: item
    for item in (Item.model_validate_json(line) for line in SAMPLE_CORPUS.read_text().splitlines())
}
LEAF = {"exists": {"key": "metadata.team"}}


def _nested(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = LEAF
    for _ in range(levels - 1):
        node = {"all_of": [node]}
    return node


BAD_FILTERS = [
    (
        {"all_of": [LEAF, LEAF, {"gte": {"key": "created_at", "value": "yesterday"}}]},
        "filter.all_of[2].gte.value",
    ),
    ({"any_of": [LEAF, {"near": {"key": "kind", "value": "x"}}]}, "filter.any_of[1]"),
    ({"equals": {"key": "context_id", "value": "globex"}}, "filter.equals.key"),
    ({"equals": {"key": "owner", "value": "x"}}, "filter.equals.key"),
    ({"gt": {"key": "status", "value": "ACTIVE"}}, "filter.gt.key"),
    ({"equals": {"key": "kind", "value": "memo"}}, "filter.equals.value"),
    ({"equals": {"key": "confidence", "value": "high"}}, "filter.equals.value"),
    ({"equals": {"key": "metadata.team", "value": {"name": "payments"}}}, "filter.equals.value"),
    (_nested(6), "filter"),
    ({"any_of": [LEAF] * 51}, "filter"),
    ({"none_of": []}, "filter.none_of"),
    ({"in": {"key": "metadata.team", "value": []}}, "filter.in.value"),
    ({"in": {"key": "metadata.team", "value": [str(n) for n in range(101)]}}, "filter.in.value"),
    ({"equals": LEAF["exists"] | {"value": "a"}, "exists": LEAF["exists"]}, "filter"),
]


@pytest.mark.parametrize(("where", "field"), BAD_FILTERS)
def test_a_bad_filter_is_a_422_naming_its_path(corpus_settings: Settings, where: Any, field: str) -> None:
    status, body = retrieve("acme", {"mode": "lexical", "text": "payments", "filter": where})
    assert status == 422, body
    assert body["error"] == "invalid_request"
    assert [f["field"] for f in body["fields"]] == [field], body


def test_nan_in_a_filter_is_a_422_naming_the_value(corpus_settings: Settings) -> None:
    # Python's JSON parser accepts a bare NaN, so the raw body carries one.
    where = '{"all_of": [{"gte": {"key": "confidence", "value": NaN}}]}'
    raw = '{"mode": "lexical", "text": "payments", "filter": ' + where + "}"
    event = api_event("POST", "/v1/retrieve", "acme")
    event["body"] = raw
    status, body, _ = call("retrieve", event)
    assert status == 422, body
    assert body["fields"][0]["field"] == "filter.all_of[0].gte.value"


@pytest.mark.parametrize(
    ("leaf", "reason"),
    [
        ({"gte": {"key": "metadata.team", "value": "m"}}, "ranges apply to keys declared number or date"),
        ({"equals": {"key": "metadata.http_status", "value": 200}}, "the value must be a string"),
    ],
)
def test_a_filter_the_index_cannot_apply_is_a_422_with_key_and_reason_and_spends_nothing(
    corpus_settings: Settings, leaf: dict[str, Any], reason: str
) -> None:
    session = f"filter-refused-{next(iter(leaf))}"
    where = {"any_of": [LEAF, leaf]}
    status, body = retrieve(
        "acme", {"mode": "hybrid", "text": "payments", "filter": where, "session_id": session}
    )
    assert status == 422, body
    key = next(iter(leaf.values()))["key"]
    assert (body["error"], body["key"], body["field"]) == (
        "invalid_request",
        key,
        f"filter.any_of[1].{next(iter(leaf))}",
    )
    assert reason in body["reason"] and "not declared" in body["reason"]
    status, _, _ = call(
        "retrieve",
        session_event("acme", session),
    )
    assert status == 404, "a refused filter must not open or charge a session"


def test_the_response_echoes_the_normalised_filter(corpus_settings: Settings) -> None:
    where = {
        "all_of": [
            {"gte": {"key": "created_at", "value": "2026-03-01T02:00:00+02:00"}},
            {"in": {"key": "kind", "value": ["record", "document", "record"]}},
        ]
    }
    status, body = retrieve("acme", {"mode": "hybrid", "text": "payments team", "filter": where})
    assert status == 200, body
    assert body["applied"]["filter"] == {
        "expression": {
            "all_of": [
                {"gte": {"key": "created_at", "value": "2026-03-01T00:00:00Z"}},
                {"in": {"key": "kind", "value": ["record", "document"]}},
            ]
        },
        "arms": {"lexical": "in_query", "vector": "in_query"},
    }
    assert body["hits"]
    assert all(matches(ITEMS[h["id"]], where) for h in body["hits"])


def test_entity_and_temporal_apply_the_filter_in_their_queries(corpus_settings: Settings) -> None:
    fact = known.COLLIDING_NAMES[0]
    where = {"not_equals": {"key": "kind", "value": "proposition"}}
    window = {"from": "2025-01-01T00:00:00Z", "to": "2027-12-31T00:00:00Z"}
    for request in (
        {"mode": "entity", "entity_id": fact.entity_ids["acme"]},
        {"mode": "temporal", "window": window},
    ):
        common = {"top_k": 100, "diversify": False}
        _, unfiltered = retrieve("acme", request | common)
        status, filtered = retrieve("acme", request | common | {"filter": where})
        assert status == 200, filtered
        assert any(not matches(ITEMS[h["id"]], where) for h in unfiltered["hits"]), "the filter must narrow"
        assert filtered["hits"] and all(matches(ITEMS[h["id"]], where) for h in filtered["hits"])
        if request["mode"] == "entity":  # few enough to see all of them either way
            assert [h["id"] for h in filtered["hits"]] == [
                h["id"] for h in unfiltered["hits"] if matches(ITEMS[h["id"]], where)
            ]
        assert filtered["applied"]["filter"]["arms"] == {request["mode"]: "in_query"}


def test_a_graph_walk_follows_every_edge_and_returns_only_matching_propositions(
    corpus_settings: Settings,
) -> None:
    start = known.FACTS["acme"].four_hop_path.start
    request = {"mode": "graph_walk", "entity_id": start, "depth": 4, "top_k": 100, "diversify": False}
    _, unfiltered = retrieve("acme", request)
    dates = sorted(h["created_at"] for h in unfiltered["hits"])
    cut = dates[len(dates) // 2]
    where = {"gte": {"key": "created_at", "value": cut}}
    status, filtered = retrieve("acme", request | {"filter": where})
    assert status == 200, filtered
    expected = [h["id"] for h in unfiltered["hits"] if h["created_at"] >= cut]
    assert 0 < len(expected) < len(unfiltered["hits"])
    assert [h["id"] for h in filtered["hits"]] == expected
    assert filtered["applied"]["filter"]["arms"] == {"graph": "on_results"}
    assert json.dumps(filtered).count("globex:") == 0


def test_expand_graph_filters_the_propositions_it_adds(corpus_settings: Settings) -> None:
    where = {"gte": {"key": "confidence", "value": 0.8}}
    request = {"mode": "hybrid", "text": "who leads payments", "expand_graph": True, "top_k": 20}
    _, unfiltered = retrieve("acme", request)
    assert "graph" in unfiltered["arms"]
    status, filtered = retrieve("acme", request | {"filter": where})
    assert status == 200, filtered
    assert any(not matches(ITEMS[h["id"]], where) for h in unfiltered["hits"] if h["found_by"] == ["graph"])
    assert filtered["hits"] and all(matches(ITEMS[h["id"]], where) for h in filtered["hits"])
    assert filtered["applied"]["filter"]["arms"] == {
        "lexical": "in_query",
        "vector": "in_query",
        "graph": "on_results",
    }


def test_feedback_first_passes_apply_the_filter_in_their_queries(corpus_settings: Settings) -> None:
    from retrieval_core.bootstrap import container
    from retrieval_core.models.filters import resolve
    from retrieval_core.ports import SearchFilters
    from retrieval_core.retrieval.requests import RetrieveRequest

    where = {"not_equals": {"key": "kind", "value": "proposition"}}
    parsed = RetrieveRequest.model_validate({"mode": "hybrid", "text": "x", "filter": where}).filter
    assert parsed is not None
    resolved = resolve(parsed, container().retrieval_config.metadata)
    store, text = container().store, known.COLLIDING_NAMES[0].name
    vector = container().embedder.embed([text])[0]
    for filtered, unfiltered in (
        (
            store.lexical_feedback("acme", text, SearchFilters(size=20, where=resolved)),
            store.lexical_feedback("acme", text, SearchFilters(size=20)),
        ),
        (
            store.vector_feedback("acme", vector, SearchFilters(size=20, where=resolved)),
            store.vector_feedback("acme", vector, SearchFilters(size=20)),
        ),
    ):
        assert any(not matches(ITEMS[h.id], where) for h in unfiltered), "the filter must narrow"
        assert filtered and all(matches(ITEMS[h.id], where) for h in filtered)
        assert all(h.vector and h.text == ITEMS[h.id].text for h in filtered)
