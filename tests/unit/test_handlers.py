"""The three handlers end to end against in-memory fakes: the composition root with overrides serves
them unchanged, so every error path (401, 403, 404, 409, 422, 429) is checked in milliseconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fakes_graph import FakeGraph, FakeLineage
from fakes_store import FixedEmbedder, InMemoryStore, capabilities_of
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_core.policy import InMemorySessionStore, PolicyConfig, RetrievalPolicy
from retrieval_dev.cli.events import api_event, session_event
from retrieval_dev.cli.lambda_runtime import invoke

SESSION_LIMIT = 2


def item(item_id: str, text: str, **extra: Any) -> Item:
    return Item.model_validate(
        {
            "id": item_id,
            "context_id": item_id.split(":")[0],
            "kind": "proposition",
            "text": text,
            "created_at": "2026-03-01T00:00:00Z",
            "embedding": [1.0, 0.0],
        }
        | extra
    )


def _ends(ctx: str) -> list[dict[str, str]]:
    """What the graph's edge of a context's p-1 joins (a walk shows only edges a document vouches for)."""
    return [
        {"entity_id": f"{ctx}:person/alice", "name": "Alice", "type": "Person"},
        {"entity_id": f"{ctx}:team/payments", "name": "Payments", "type": "Team"},
    ]


@pytest.fixture(autouse=True)
def fakes() -> Iterator[None]:
    store = InMemoryStore(
        [
            item(
                "acme:p-1",
                "Alice Chen leads the Payments team",
                source_ids=["acme:d-1"],
                mentions=_ends("acme"),
            ),
            item("acme:d-1", "Org memo: Alice Chen leads Payments"),
            item("globex:p-1", "Alice Chen leads the Payments team at globex", mentions=_ends("globex")),
        ]
    )
    graph = FakeGraph()
    graph.link("acme", "acme:person/alice", "acme:team/payments", "acme:p-1")
    graph.link("globex", "globex:person/alice", "globex:team/payments", "globex:p-1")
    lineage = FakeLineage()
    lineage.add("acme", "acme:d-1")
    lineage.add("acme", "acme:p-1", source_ids=["acme:d-1"])
    lineage.add("globex", "globex:p-1")
    container = bootstrap.Container(
        Settings(),
        overrides={
            "capabilities": capabilities_of(store, graph, FixedEmbedder({}, dimension=2)),
            "items": store,
            "edges": graph,
            "lineage": lineage,
            "policy": RetrievalPolicy(InMemorySessionStore(), PolicyConfig(limit=SESSION_LIMIT)),
        },
    )
    with bootstrap.use(container):
        yield


def call(function: str, event: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = invoke(function, event)
    body = response["body"]
    return response["statusCode"], json.loads(body) if isinstance(body, str) else body


def retrieve(body: Any, context_id: str = "acme", **headers: str) -> tuple[int, dict[str, Any]]:
    event = api_event("POST", "/v1/retrieve", context_id, body=body)
    event["headers"].update(headers)
    return call("retrieve", event)


def why(item_id: str, context_id: str = "acme") -> tuple[int, dict[str, Any]]:
    event = api_event("GET", f"/v1/why/{item_id}", context_id, path_parameters={"item_id": item_id})
    return call("why_explain", event)


def path(context_id: str = "acme", **query: str) -> tuple[int, dict[str, Any]]:
    return call("graph_path", api_event("GET", "/v1/graph/path", context_id, query=query))


def test_each_handler_answers_from_the_fakes() -> None:
    # One pass: the fake's word-overlap "BM25" ignores the boosts feedback gives its expansion terms.
    status, body = retrieve({"mode": "lexical", "text": "payments team", "feedback": {"enabled": False}})
    assert status == 200 and [h["id"] for h in body["hits"]] == ["acme:p-1", "acme:d-1"]
    status, body = why("acme:p-1")
    assert status == 200 and [n["id"] for n in body["derived_from"]["nodes"]] == ["acme:d-1"]
    status, body = path(**{"from": "acme:person/alice", "to": "acme:team/payments"})
    assert status == 200 and body["found"] is True


@pytest.mark.parametrize("function", ["retrieve", "graph_path", "why_explain"])
def test_no_claim_is_401_and_a_context_outside_the_claim_is_403(function: str) -> None:
    routes = {
        "retrieve": ("POST", "/v1/retrieve", {"mode": "lexical", "text": "x"}),
        "graph_path": ("GET", "/v1/graph/path", None),
        "why_explain": ("GET", "/v1/why/acme:p-1", None),
    }
    method, route, body = routes[function]
    event = api_event(method, route, "acme", body=body)
    del event["requestContext"]["authorizer"]["context_id"]
    status, error = call(function, event)
    assert (status, error["error"]) == (401, "unauthenticated")
    event = api_event(method, route, "acme,globex", body=body)
    event["headers"]["X-Context-Id"] = "initech"
    status, error = call(function, event)
    assert (status, error["error"]) == (403, "forbidden")


def test_a_bad_body_is_a_422_naming_the_field() -> None:
    status, body = retrieve({"mode": "lexical", "text": "x", "top_k": "many"})
    assert status == 422 and [f["field"] for f in body["fields"]] == ["top_k"]
    status, body = retrieve({"mode": "telepathy"})
    assert status == 422 and body["fields"][0]["field"] == "mode"


def test_a_foreign_item_is_the_same_404_as_a_missing_one() -> None:
    foreign, missing = why("globex:p-1"), why("acme:p-404")
    assert foreign == missing and foreign[0] == 404


def test_a_foreign_entity_finds_no_path_exactly_like_a_missing_one() -> None:
    foreign = path(**{"from": "acme:person/alice", "to": "globex:team/payments"})
    missing = path(**{"from": "acme:person/alice", "to": "acme:team/nowhere"})
    assert foreign == missing and foreign[1]["found"] is False


def test_a_repeated_query_is_409_and_a_spent_budget_429() -> None:
    session = {"X-Retrieval-Session": "run-1"}
    assert retrieve({"mode": "lexical", "text": "payments"}, **session)[0] == 200
    status, body = retrieve({"mode": "lexical", "text": "payments"}, **session)
    assert (status, body["error"], body["original_sequence"]) == (409, "duplicate_query", 1)
    assert retrieve({"mode": "lexical", "text": "alice"}, **session)[0] == 200
    status, body = retrieve({"mode": "lexical", "text": "memo"}, **session)
    assert (status, body["error"], body["limit"]) == (429, "session_budget_exhausted", SESSION_LIMIT)


def test_an_unknown_session_is_404() -> None:
    event = session_event("acme", "nope")
    status, body = call("retrieve", event)
    assert (status, body["error"]) == (404, "not_found")


def test_a_direct_invocation_without_a_valid_request_is_422() -> None:
    status, body = call("retrieve", {"context_id": "acme", "request": {"mode": "lexical"}})
    assert status == 422 and "text" in body["message"]
    status, body = call("why_explain", {"context_id": "acme", "request": {}})
    assert status == 422 and body["fields"][0]["field"] == "item_id"


@pytest.mark.parametrize("mode", ["lexical", "graph_walk"])
def test_the_api_answers_the_same_body_as_a_direct_invocation(mode: str) -> None:
    """The API writes its answer as JSON text itself (aliases included: graph edges say from/to)."""
    request = {"mode": mode, "text": "Alice Payments", "entity_id": "acme:person/alice", "depth": 2}
    if mode == "lexical":
        request.pop("entity_id")
    status, api_body = retrieve(request)
    direct_status, direct_body = call("retrieve", {"context_id": "acme", "request": request})
    assert status == direct_status == 200 and api_body["hits"]
    for body in (api_body, direct_body):
        body["receipt"].pop("requested_at"), body["receipt"].pop("completed_at")
    assert api_body == direct_body


def test_graph_path_and_why_explain_answer_the_same_body_as_direct_invocations() -> None:
    status, api_path = path(**{"from": "acme:person/alice", "to": "acme:team/payments"})
    request = {"from": "acme:person/alice", "to": "acme:team/payments"}
    direct_status, direct_path = call("graph_path", {"context_id": "acme", "request": request})
    assert status == direct_status == 200 and api_path["found"]
    assert api_path == direct_path
    assert set(api_path["paths"][0]["edges"][0]) >= {"from", "to"}  # aliases, as the schema names them
    status, api_why = why("acme:p-1")
    direct_status, direct_why = call(
        "why_explain", {"context_id": "acme", "request": {"item_id": "acme:p-1"}}
    )
    assert status == direct_status == 200 and api_why == direct_why
