"""retrieve through the real handler on the sample corpus: every mode, clamps, degradation, one round trip."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core.config import Settings
from retrieval_core.models.hits import Candidate
from retrieval_core.ports import Expansion, LexicalSearch, SearchFilters

from dev.sample import known


class LexicalOnly:
    """A search store's lexical searches alone: a deployment whose store serves no other port."""

    def __init__(self, store: LexicalSearch) -> None:
        self._store = store

    def lexical(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[Candidate]:
        return self._store.lexical(context_id, text, filters, expansion)


def ids(body: dict[str, Any]) -> list[str]:
    return [h["id"] for h in body["hits"]]


def ok(context_id: str, request: dict[str, Any]) -> dict[str, Any]:
    status, body = retrieve(context_id, request)
    assert status == 200, body
    return body


@pytest.mark.parametrize("query", known.LEXICAL_QUERIES, ids=lambda q: f"{q.context}:{q.text[:30]}")
def test_lexical_ranks_the_expected_item_first(corpus_settings: Settings, query: known.LexicalQuery) -> None:
    body = ok(query.context, {"mode": "lexical", "text": query.text, "top_k": 5})
    assert ids(body)[0] == query.expected_first
    assert body["supported"] is True and body["arms"] == ["lexical"]


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_semantic_modes_find_the_expected_item(corpus_settings: Settings, mode: str) -> None:
    for query in known.LEXICAL_QUERIES:
        body = ok(query.context, {"mode": mode, "text": query.text, "top_k": 5})
        assert query.expected_first in ids(body), (mode, query.text)


def test_entity_mode_returns_items_mentioning_the_entity(corpus_settings: Settings) -> None:
    collision = known.COLLIDING_NAMES[0]
    for ctx, entity in collision.entity_ids.items():
        body = ok(ctx, {"mode": "entity", "entity_id": entity, "top_k": 100})
        assert collision.facts[ctx] in ids(body)
        assert all(entity in [m["entity_id"] for m in h["mentions"]] for h in body["hits"])


def test_graph_walk_follows_edges_breadth_first_to_depth(corpus_settings: Settings) -> None:
    path = known.FOUR_HOP_PATH
    one = ok(path.context, {"mode": "graph_walk", "entity_id": path.start, "depth": 1, "top_k": 100})
    two = ok(path.context, {"mode": "graph_walk", "entity_id": path.start, "depth": 2, "top_k": 100})
    assert one["hits"] and set(ids(one)) < set(ids(two))
    assert all(h["kind"] == "proposition" and h["status"] == "ACTIVE" for h in two["hits"])
    first_hop = [
        h for h in one["hits"] if {path.start, path.entities[1]} <= {m["entity_id"] for m in h["mentions"]}
    ]
    assert first_hop, "the first edge of the known path is one hop from its start"


def test_temporal_mode_returns_exactly_the_window(corpus_settings: Settings) -> None:
    window = {"from": known.TEMPORAL.start.isoformat(), "to": known.TEMPORAL.end.isoformat()}
    for ctx, expected in known.TEMPORAL.expected.items():
        body = ok(ctx, {"mode": "temporal", "window": window, "top_k": 100})
        assert set(ids(body)) == expected


@pytest.mark.parametrize(
    "request_body",
    [
        {"mode": "lexical", "text": "payments incident"},
        {"mode": "vector", "text": "payments incident"},
        {"mode": "hybrid", "text": "payments incident", "weights": {"document": 1.5}},
        {"mode": "entity", "entity_id": known.FOUR_HOP_PATH.start},
        {"mode": "graph_walk", "entity_id": known.FOUR_HOP_PATH.start, "depth": 3},
    ],
    ids=lambda b: b["mode"],
)
def test_scores_are_finite_and_ordering_is_stable(corpus_settings: Settings, request_body: dict) -> None:
    first = ok("acme", request_body | {"top_k": 20, "diversify": False})
    second = ok("acme", request_body | {"top_k": 20, "diversify": False})
    assert [(h["id"], h["score"]) for h in first["hits"]] == [(h["id"], h["score"]) for h in second["hits"]]
    assert len(set(ids(first))) == len(first["hits"])
    assert all(math.isfinite(h["score"]) for h in first["hits"])
    keys = [(-h["score"], h["id"]) for h in first["hits"]]
    assert keys == sorted(keys)


def test_clamps_hold_and_are_reported(corpus_settings: Settings) -> None:
    body = ok("acme", {"mode": "lexical", "text": "team", "top_k": 1000, "depth": 99})
    assert (body["applied"]["top_k"], body["applied"]["depth"]) == (100, 5)
    assert len(body["hits"]) <= 100
    body = ok("acme", {"mode": "graph_walk", "entity_id": known.FOUR_HOP_PATH.start, "top_k": 0, "depth": 0})
    assert (body["applied"]["top_k"], body["applied"]["depth"]) == (1, 1)
    assert len(body["hits"]) == 1


def test_diversify_interleaves_kinds(corpus_settings: Settings) -> None:
    body = ok("acme", {"mode": "lexical", "text": "payments service incident team", "top_k": 12})
    kinds = [h["kind"] for h in body["hits"]]
    assert len(set(kinds[: len(set(kinds))])) == len(set(kinds))  # first round shows every kind once


def test_statuses_apply_in_every_mode(corpus_settings: Settings) -> None:
    old = known.SUPERSEDED.old
    for mode in ("lexical", "hybrid", "entity"):
        request = {"mode": mode, "text": "x", "entity_id": known.FOUR_HOP_PATH.start, "top_k": 100}
        if mode != "entity":
            request.pop("entity_id")
        body = ok("acme", request)
        assert all(h["status"] == "ACTIVE" for h in body["hits"])
    everything = ok(
        "acme",
        {
            "mode": "temporal",
            "window": {"from": "2025-01-01T00:00:00Z", "to": "2027-12-31T00:00:00Z"},
            "statuses": ["SUPERSEDED"],
            "top_k": 100,
        },
    )
    assert old in ids(everything) and all(h["status"] == "SUPERSEDED" for h in everything["hits"])


@pytest.fixture
def counted_requests(corpus_settings: Settings) -> Iterator[list[str]]:
    """Every HTTP request the handler's OpenSearch client sends, by method and path."""
    from retrieval_core.bootstrap import container

    transport = container().store._client.transport
    original = transport.perform_request
    sent: list[str] = []

    def counting(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(f"{method} {url}")
        return original(method, url, *args, **kwargs)

    transport.perform_request = counting
    try:
        yield sent
    finally:
        transport.perform_request = original


def test_hybrid_is_exactly_one_http_request(corpus_settings: Settings, counted_requests: list[str]) -> None:
    from retrieval_core.adapters.opensearch.client import IndexLayout

    body = ok(
        "acme",
        {"mode": "hybrid", "text": "payments ledger outage", "top_k": 10, "feedback": {"enabled": False}},
    )
    # One request, addressed to the caller's own alias only.
    alias = IndexLayout.of(corpus_settings).alias("acme")
    assert body["hits"] and counted_requests == [f"POST /{alias}/_msearch"]
    assert any(set(h["signals"]) == {"lexical", "vector"} for h in body["hits"])


def test_hybrid_with_feedback_is_one_search_then_one_msearch(
    corpus_settings: Settings, counted_requests: list[str]
) -> None:
    from retrieval_core.adapters.opensearch.client import IndexLayout

    asked = {"mode": "hybrid", "text": "payments ledger outage", "top_k": 10, "feedback": {"enabled": True}}
    body = ok("acme", asked)
    alias = IndexLayout.of(corpus_settings).alias("acme")
    # Feedback on request: BM25's top hits with their texts and vectors (searched while the query is
    # embedded), then the moved query's one _msearch; both on the caller's alias.
    assert counted_requests == [f"POST /{alias}/_search", f"POST /{alias}/_msearch"]
    assert body["applied"]["expansion_terms"] is None  # its default moves the vector, adds no terms
    assert body["hits"]


def test_hybrid_with_fused_feedback_is_two_msearches_and_one_vector_read(
    corpus_settings: Settings, counted_requests: list[str]
) -> None:
    from retrieval_core.adapters.opensearch.client import IndexLayout

    fused = {"first_pass": "fused", "weight": 0.3}
    body = ok("acme", {"mode": "hybrid", "text": "payments ledger outage", "top_k": 10, "feedback": fused})
    alias = IndexLayout.of(corpus_settings).alias("acme")
    # A fused first pass (ids only), the top hits' texts and vectors, the moved query.
    assert counted_requests == [
        f"POST /{alias}/_msearch",
        f"POST /{alias}/_search",
        f"POST /{alias}/_msearch",
    ]
    assert body["applied"]["expansion_terms"]
    assert body["hits"]


def test_vector_with_feedback_is_two_searches(corpus_settings: Settings, counted_requests: list[str]) -> None:
    from retrieval_core.adapters.opensearch.client import IndexLayout

    asked = {"mode": "vector", "text": "payments ledger outage", "top_k": 10, "feedback": {"enabled": True}}
    body = ok("acme", asked)
    alias = IndexLayout.of(corpus_settings).alias("acme")
    # The first pass brings its top hits' vectors along: no separate read.
    assert counted_requests == [f"POST /{alias}/_search", f"POST /{alias}/_search"]
    assert body["hits"]


def test_a_store_without_vector_capability_degrades_to_typed_empty(corpus_settings: Settings) -> None:
    from retrieval_core.bootstrap import container
    from retrieval_core.context import CallerContext
    from retrieval_core.policy import InMemorySessionStore, PolicyConfig, RetrievalPolicy
    from retrieval_core.ports import Capabilities
    from retrieval_core.retrieval.pager import Pager
    from retrieval_core.retrieval.requests import RetrieveRequest
    from retrieval_core.retrieval.service import RetrieveService

    real = container().store
    before = real.backend_calls
    config = container().retrieval_config
    # The real store, offering only its lexical capability (a store serves the ports it implements).
    capabilities = Capabilities(search=LexicalOnly(real), embedder=container().embedder)
    service = RetrieveService(
        policy=RetrievalPolicy(InMemorySessionStore(), PolicyConfig()),
        pager=Pager.unpaged(capabilities, config),
        config=config,
        dimension=None,
    )
    for mode in ("vector", "hybrid"):
        result = service.retrieve(CallerContext("acme"), RetrieveRequest(mode=mode, text="payments"))
        assert (result.supported, result.hits, result.missing_capability) == (False, [], mode)
    assert real.backend_calls == before  # no scan, no read at all
    lexical = service.retrieve(CallerContext("acme"), RetrieveRequest(mode="lexical", text="payments"))
    assert lexical.supported and lexical.hits
