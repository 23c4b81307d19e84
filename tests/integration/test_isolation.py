"""Two contexts whose entity names collide: no mode, path, lineage walk, error or count reveals the other.

Every test runs in both isolation models: silo (the session corpus) and pool (a copy in one shared index,
loaded once for this module).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from corpus_stack import graph_path, provisioned_corpus, retrieve, why
from retrieval_core import bootstrap
from retrieval_core.config import Settings

from dev.sample import known

COLLISION = known.COLLIDING_NAMES[0]
WINDOW = {"from": "2025-01-01T00:00:00Z", "to": "2027-12-31T00:00:00Z"}


@pytest.fixture(scope="module")
def pool_corpus(stack_settings: Settings, opensearch: Any) -> Iterator[Settings]:
    pool = stack_settings.model_copy(update={"isolation_model": "pool"})
    with provisioned_corpus(pool, opensearch, serve=False) as settings:
        yield settings


@pytest.fixture(params=["silo", "pool"])
def model_corpus(request: pytest.FixtureRequest, corpus_settings: Settings) -> Iterator[Settings]:
    """The sample corpus in one isolation model, the handlers pointed at it for this test."""
    settings = corpus_settings if request.param == "silo" else request.getfixturevalue("pool_corpus")
    assert settings.isolation_model == request.param
    with bootstrap.use(bootstrap.Container(settings)):
        yield settings


def requests_about(name: str, entity_id: str) -> list[dict[str, Any]]:
    return [
        {"mode": "lexical", "text": name},
        {"mode": "vector", "text": name},
        {"mode": "hybrid", "text": name, "expand_graph": True},
        {"mode": "entity", "entity_id": entity_id},
        {"mode": "graph_walk", "entity_id": entity_id, "depth": 5},
        {"mode": "temporal", "window": WINDOW},
        {"mode": "auto", "text": f"What did {name} do in 2026?"},
    ]


def foreign_strings(ctx: str) -> list[str]:
    """Everything that would betray the other context: its ids and its version of the colliding fact."""
    others = [c for c in known.CONTEXTS if c != ctx]
    return [f"{other}:" for other in others]


@pytest.mark.parametrize("ctx", known.CONTEXTS)
def test_no_mode_returns_or_mentions_another_context(model_corpus: Settings, ctx: str) -> None:
    for request in requests_about(COLLISION.name, COLLISION.entity_ids[ctx]):
        status, body = retrieve(
            ctx, request | {"top_k": 100, "statuses": ["ACTIVE", "SUPERSEDED", "CONTRADICTED", "STALE"]}
        )
        assert status == 200, body
        assert body["hits"], request
        text = json.dumps(body)
        for marker in foreign_strings(ctx):
            assert marker not in text, (request["mode"], marker)
        assert all(h["id"].startswith(f"{ctx}:") for h in body["hits"])


@pytest.mark.parametrize("ctx", known.CONTEXTS)
def test_feedback_first_passes_read_only_the_callers_items(model_corpus: Settings, ctx: str) -> None:
    from retrieval_core.ports import SearchFilters

    store, embedder = bootstrap.container().store, bootstrap.container().embedder
    filters = SearchFilters(size=20)
    lexical = store.lexical_feedback(ctx, COLLISION.name, filters)
    vector = store.vector_feedback(ctx, embedder.embed([COLLISION.name])[0], filters)
    assert lexical and vector
    assert all(hit.id.startswith(f"{ctx}:") for hit in [*lexical, *vector])


def test_the_colliding_fact_differs_and_each_context_sees_only_its_own(model_corpus: Settings) -> None:
    texts = {}
    for ctx in known.CONTEXTS:
        _, body = retrieve(ctx, {"mode": "entity", "entity_id": COLLISION.entity_ids[ctx], "top_k": 100})
        texts[ctx] = {h["id"]: h["text"] for h in body["hits"]}
        assert COLLISION.facts[ctx] in texts[ctx]
    acme_fact = texts["acme"][COLLISION.facts["acme"]]
    globex_fact = texts["globex"][COLLISION.facts["globex"]]
    assert acme_fact != globex_fact
    assert globex_fact not in texts["acme"].values() and acme_fact not in texts["globex"].values()


def test_a_body_or_query_string_context_is_ignored(model_corpus: Settings) -> None:
    from corpus_stack import call
    from retrieval_dev.cli.events import api_event

    event = api_event(
        "POST",
        "/v1/retrieve",
        "acme",
        body={"mode": "lexical", "text": COLLISION.name, "context_id": "globex", "top_k": 100},
        query={"context_id": "globex"},
    )
    status, body, _ = call("retrieve", event)
    assert status == 200 and body["hits"]
    assert all(h["id"].startswith("acme:") for h in body["hits"])


def test_foreign_entity_looks_exactly_like_a_missing_one(model_corpus: Settings) -> None:
    foreign = COLLISION.entity_ids["globex"]
    for missing in ("acme:person/nobody-at-all", "globex:person/nobody-at-all"):
        for mode in ("entity", "graph_walk"):
            a = retrieve("acme", {"mode": mode, "entity_id": foreign})
            b = retrieve("acme", {"mode": mode, "entity_id": missing})
            assert _without_receipt(a) == _without_receipt(b)
            assert a[0] == 200 and a[1]["hits"] == []
    path = known.FACTS["globex"].four_hop_path
    assert graph_path("acme", **{"from": path.start, "to": path.end}) == graph_path(
        "acme", **{"from": "globex:x/none", "to": "globex:y/none"}
    )


def test_foreign_lineage_ids_give_the_same_404_as_missing_ones(model_corpus: Settings) -> None:
    foreign = known.FACTS["globex"].lineage_chain.leaf
    assert why("acme", foreign) == why("acme", "acme:does-not-exist") == why("acme", "globex:does-not-exist")
    assert why("acme", foreign)[0] == 404


def _without_receipt(result: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    status, body = result
    return status, {k: v for k, v in body.items() if k != "receipt"}
