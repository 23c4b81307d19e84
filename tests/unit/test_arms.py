"""Each mode's arms against in-memory stores: which serve it, degradation, clamps, weights, graph arms."""

from __future__ import annotations

import math
from typing import Any

import pytest
from fakes_graph import FakeGraph
from fakes_store import (
    BuildCountingStore,
    FixedEmbedder,
    InMemoryLexicalStore,
    InMemoryStore,
    capabilities_of,
)
from retrieval_core.context import CallerContext
from retrieval_core.errors import InvalidRequestError
from retrieval_core.models.item import Item
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.requests import RetrieveRequest
from unpaged import Unpaged

ACME = CallerContext("acme")


def item(item_id: str, text: str, kind: str = "proposition", **extra: object) -> Item:
    ctx = item_id.split(":")[0]
    return Item.model_validate(
        {"id": item_id, "context_id": ctx, "kind": kind, "text": text, "created_at": "2026-03-01T00:00:00Z"}
        | extra
    )


ITEMS = [
    item(
        "acme:p-1",
        "Alice Chen leads the Payments team",
        embedding=[1.0, 0.0],
        mentions=[
            {"entity_id": "acme:person/alice", "name": "Alice", "type": "Person"},
            {"entity_id": "acme:team/payments", "name": "Payments", "type": "Team"},
        ],
    ),
    item("acme:d-1", "Payments team design document about ledgers", kind="document", embedding=[0.9, 0.1]),
    item(
        "acme:p-2",
        "Bob runs the Risk team",
        embedding=[0.0, 1.0],
        # The ends of the edge the expansion test plants (a walk shows only edges a document vouches for).
        mentions=[
            {"entity_id": "acme:team/payments", "name": "Payments", "type": "Team"},
            {"entity_id": "acme:person/bob", "name": "Bob", "type": "Person"},
        ],
    ),
    item("acme:p-old", "Alice Chen led the Payments team", status="SUPERSEDED", embedding=[1.0, 0.0]),
    item("globex:p-1", "Alice Chen leads the Payments team in globex", embedding=[1.0, 0.0]),
]
EMBEDDER = FixedEmbedder({"payments team": [1.0, 0.0]}, dimension=2)


def unpaged(
    store: InMemoryLexicalStore | InMemoryStore, graph: FakeGraph | None = None, **config: Any
) -> Unpaged:
    return Unpaged(capabilities_of(store, graph, EMBEDDER), ACME, config=RetrievalConfig(**config))


def request(**fields: object) -> RetrieveRequest:
    return RetrieveRequest.model_validate(fields)


def test_missing_vector_capability_degrades_to_typed_empty_without_a_scan() -> None:
    store = InMemoryLexicalStore(ITEMS)
    for mode in ("vector", "hybrid"):
        result = unpaged(store).first_page(request(mode=mode, text="payments team"))
        assert result.supported is False
        assert result.hits == []
        assert result.missing_capability == mode
    assert store.calls == []  # nothing was read


def test_entity_and_temporal_degrade_on_a_lexical_only_store() -> None:
    store = InMemoryLexicalStore(ITEMS)
    assert not unpaged(store).first_page(request(mode="entity", entity_id="acme:team/payments")).supported
    window = {"from": "2026-01-01T00:00:00Z", "to": "2026-12-31T00:00:00Z"}
    assert not unpaged(store).first_page(request(mode="temporal", window=window)).supported
    assert not unpaged(store, graph=None).first_page(request(mode="graph_walk", entity_id="acme:x")).supported
    assert store.calls == []


def test_lexical_stays_in_context_and_status() -> None:
    result = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="lexical", text="Alice payments", diversify=False)
    )
    ids = [h.id for h in result.hits]
    assert ids[0] == "acme:p-1"
    assert "globex:p-1" not in ids and "acme:p-old" not in ids
    assert result.hits[0].score == 1.0  # normalised by the best hit


def test_statuses_widen_every_mode_the_same_way() -> None:
    result = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="lexical", text="Alice led", statuses=["ACTIVE", "SUPERSEDED"])
    )
    assert "acme:p-old" in [h.id for h in result.hits]


def test_hybrid_fuses_arms_with_signals_and_merges_ids() -> None:
    result = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="hybrid", text="payments team", diversify=False)
    )
    assert result.arms == ("lexical", "vector")
    by_id = {h.id: h for h in result.hits}
    assert set(by_id["acme:p-1"].signals) == {"lexical", "vector"}
    assert len(by_id) == len(result.hits)
    assert all(0 <= h.score <= 1 and math.isfinite(h.score) for h in result.hits)
    scores = [(-h.score, h.id) for h in result.hits]
    assert scores == sorted(scores)


def test_hybrid_builds_hits_only_for_the_hits_it_returns() -> None:
    store = BuildCountingStore(ITEMS)
    result = unpaged(store).first_page(request(mode="hybrid", text="payments team", top_k=1))
    assert len(set(store.candidates)) > 1
    assert store.built == [h.id for h in result.hits] == [result.hits[0].id]
    assert set(result.hits[0].signals) == set(result.hits[0].found_by) == {"lexical", "vector"}


def test_clamps_are_applied_before_routing_and_reported() -> None:
    result = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="lexical", text="team", top_k=1000, depth=-3)
    )
    assert (result.applied.top_k, result.applied.depth) == (100, 1)
    assert (
        unpaged(InMemoryStore(ITEMS)).first_page(request(mode="lexical", text="team", top_k=0)).applied.top_k
        == 1
    )


def test_weights_multiply_scores_and_can_reorder_kinds() -> None:
    plain = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="hybrid", text="payments team", diversify=False)
    )
    weighted = unpaged(InMemoryStore(ITEMS)).first_page(
        request(
            mode="hybrid", text="payments team", diversify=False, weights={"document": 3, "proposition": 0.5}
        )
    )
    plain_scores = {h.id: h.score for h in plain.hits}
    for hit in weighted.hits:
        factor = 3 if hit.kind == "document" else 0.5
        assert hit.score == pytest.approx(plain_scores[hit.id] * factor)
    assert weighted.hits[0].kind == "document"


def test_min_score_filters_after_weighting() -> None:
    result = unpaged(InMemoryStore(ITEMS)).first_page(
        request(mode="lexical", text="Alice payments", min_score=0.9)
    )
    assert [h.id for h in result.hits] == ["acme:p-1"]


def test_vector_of_the_wrong_dimension_is_rejected_before_any_read() -> None:
    store = InMemoryStore(ITEMS)
    with pytest.raises(InvalidRequestError, match="vector"):
        unpaged(store).first_page(request(mode="vector", vector=[1.0, 0.0, 0.0]))
    assert store.calls == []


def test_graph_walk_returns_edge_propositions_in_context() -> None:
    graph = FakeGraph()
    graph.link("acme", "acme:person/alice", "acme:team/payments", "acme:p-1", confidence=0.8)
    result = unpaged(InMemoryStore(ITEMS), graph).first_page(
        request(mode="graph_walk", entity_id="acme:person/alice")
    )
    assert [h.id for h in result.hits] == ["acme:p-1"]
    assert result.hits[0].found_by == ["graph"]


def test_graph_walk_leaves_out_an_edge_its_propositions_document_does_not_vouch_for() -> None:
    # Issue 67, item 3: a row of another version of the proposition (its document names neither end).
    graph = FakeGraph()
    graph.link("acme", "acme:person/alice", "acme:team/risk", "acme:p-1")
    result = unpaged(InMemoryStore(ITEMS), graph).first_page(
        request(mode="graph_walk", entity_id="acme:team/risk")
    )
    assert result.hits == []


def test_expand_graph_adds_neighbours_strictly_below_fused_hits() -> None:
    graph = FakeGraph()
    graph.link("acme", "acme:team/payments", "acme:person/bob", "acme:p-2")
    result = unpaged(InMemoryStore(ITEMS), graph).first_page(
        request(mode="hybrid", text="payments team", expand_graph=True, top_k=2)
    )
    graph_hits = [h for h in result.hits if h.found_by == ["graph"]]
    fused = [h for h in result.hits if h.found_by != ["graph"]]
    assert [h.id for h in graph_hits] == ["acme:p-2"]
    assert max(h.score for h in graph_hits) < min(h.score for h in fused)
    assert result.hits[-1].id == "acme:p-2"
