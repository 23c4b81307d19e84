"""Fusion as policy data: per-request options within bounds, named presets, weighted RRF and the two
score normalisations by hand; pseudo-relevance feedback's terms and Rocchio's vector by hand."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest
from fakes_store import FixedEmbedder, InMemoryStore
from retrieval_core.context import CallerContext
from retrieval_core.models.hits import Candidate, Hit
from retrieval_core.models.item import Item
from retrieval_core.ports import ArmResults, Capabilities, Expansion, SearchFilters
from retrieval_core.retrieval.config import PRESETS, FusionConfig, RetrievalConfig
from retrieval_core.retrieval.feedback import FeedbackOptions, FeedbackText
from retrieval_core.retrieval.fusion import reciprocal_rank_fusion, weighted_score_fusion
from retrieval_core.retrieval.pager import Page
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.stages.feedback import boosts, expansion_terms, rocchio
from unpaged import Unpaged


def hit(hit_id: str, score: float) -> Hit:
    return Hit(id=hit_id, kind="proposition", text="t", score=score, status="ACTIVE", created_at="2026-01-01")


ARMS = {"lexical": [hit("a", 9.0), hit("b", 3.0)], "vector": [hit("b", 0.8), hit("c", 0.6)]}


def test_weighted_rrf_by_hand() -> None:
    fused = reciprocal_rank_fusion(ARMS, 10, {"lexical": 1.0, "vector": 2.0})
    best = 3.0 / 11
    expected = {"a": (1 / 11) / best, "b": (1 / 12 + 2 / 11) / best, "c": (2 / 12) / best}
    assert [f.id for f in fused] == ["b", "c", "a"]
    assert {f.id: f.score for f in fused} == pytest.approx(expected)


def test_l2_score_fusion_by_hand() -> None:
    lexical_norm, vector_norm = math.sqrt(81 + 9), math.sqrt(0.64 + 0.36)
    fused = weighted_score_fusion(ARMS, {"lexical": 0.5, "vector": 0.5}, "l2")
    expected = {
        "a": 0.5 * 9 / lexical_norm,
        "b": 0.5 * 3 / lexical_norm + 0.5 * 0.8 / vector_norm,
        "c": 0.5 * 0.6 / vector_norm,
    }
    assert {f.id: f.score for f in fused} == pytest.approx(expected)
    assert [f.id for f in fused] == ["b", "a", "c"]


def request(**fields: Any) -> RetrieveRequest:
    return RetrieveRequest.model_validate({"mode": "hybrid", "text": "wing"} | fields)


def test_request_options_override_the_deployment_and_presets_start_elsewhere() -> None:
    store = InMemoryStore([])
    unpaged = Unpaged(
        Capabilities(search=store, graph=None, embedder=None),
        CallerContext("acme"),
        config=RetrievalConfig(),
    )
    assert unpaged.prepared(request()).tuning.fusion == FusionConfig()
    tuned = unpaged.prepared(
        request(fusion={"rank_constant": 60, "weights": {"lexical": 1, "vector": 3}})
    ).tuning.fusion
    assert (tuned.method, tuned.rank_constant, tuned.weights.vector) == ("rrf", 60, 3)
    preset = unpaged.prepared(
        request(fusion={"preset": "score_l2", "weights": {"lexical": 2, "vector": 1}})
    ).tuning.fusion
    assert (preset.method, preset.normalization, preset.weights.lexical) == ("score", "l2", 2)
    assert unpaged.prepared(request(fusion={"rank_constant": 7})).applied.rank_constant == 7


@pytest.mark.parametrize(
    "fusion",
    [
        {"method": "max"},
        {"rank_constant": 0},
        {"rank_constant": 1001},
        {"weights": {"lexical": -1, "vector": 1}},
        {"weights": {"lexical": 11, "vector": 1}},
        {"weights": {"lexical": 0, "vector": 0}},
        {"weights": {"graph": 1}},
        {"normalization": "z"},
        {"preset": "nope"},
        {"rank_constant": True},
    ],
)
def test_fusion_options_out_of_bounds_are_refused(fusion: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="fusion"):
        request(fusion=fusion)


@pytest.mark.parametrize(
    "feedback", [{"docs": 0}, {"docs": 21}, {"terms": 51}, {"weight": 1}, {"vector_weight": 6}]
)
def test_feedback_options_out_of_bounds_are_refused(feedback: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="feedback"):
        request(feedback=feedback)


def test_expansion_terms_by_hand() -> None:
    first = FeedbackText("the shock wave and the shock layer", 1.0)
    second = FeedbackText("a wave of heat and shock", 0.5)
    # Shares: doc 1 has 4 words (shock x2, wave, layer) -> 1/4 each; doc 2 has 3 (wave, heat, shock) ->
    # 0.5/3 each. Two feedback hits: a term must occur in both, so "layer" and "heat" are left out.
    votes = {"shock": 0.5 + 0.5 / 3, "wave": 0.25 + 0.5 / 3}
    total = sum(votes.values())
    terms = expansion_terms([first, second], 3)
    assert [term for term, _ in terms] == ["shock", "wave"]
    assert [weight for _, weight in terms] == pytest.approx([votes["shock"] / total, votes["wave"] / total])
    # One hit alone agrees with itself: all its terms (the ties at 0.25 go to the earlier term).
    assert expansion_terms([first], 3) == [("shock", 0.5), ("layer", 0.25), ("wave", 0.25)]
    assert expansion_terms([first, FeedbackText("heat flux", 0.5)], 3) == []  # nothing shared: stay out
    assert boosts("shock waves", terms[:1], 0.5) == [("shock", votes["shock"] / total * 2)]


def test_rocchio_by_hand() -> None:
    # The query is made unit first; [0, 1] (cosine 0 with the query) is not one it agrees with.
    moved = rocchio([2.0, 0.0], [[0.6, 0.8], [0.0, 1.0]], 1.0)
    assert moved == pytest.approx([1.6 / math.sqrt(3.2), 0.8 / math.sqrt(3.2)])
    assert rocchio([2.0, 0.0], [[0.0, 1.0], [0.0, 0.0]], 1.0) == [2.0, 0.0]  # none agrees: left alone
    assert rocchio([1.0, 0.0], [], 1.0) == [1.0, 0.0]
    assert rocchio([1.0, 0.0], [[0.0, 1.0]], 0.0) == [1.0, 0.0]


def item(n: int, context: str, text: str, team: str) -> Item:
    return Item.model_validate(
        {
            "id": f"{context}:p-{n}",
            "context_id": context,
            "kind": "proposition",
            "text": text,
            "embedding": [1.0, float(n)],
            "metadata": {"team": team},
            "created_at": "2026-03-01T00:00:00Z",
        }
    )


class VectorRecordingStore(InMemoryStore):
    """Records the query vector of every k-NN search (the moved one is the last)."""

    def __init__(self, items: list[Item]) -> None:
        super().__init__(items)
        self.searched: list[list[float]] = []

    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Candidate]:
        self.searched.append(list(vector))
        return super().vector(context_id, vector, filters)

    def hybrid(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        expansion: Expansion = (),
        *,
        ids_only: bool = False,
    ) -> ArmResults:
        self.searched.append(list(vector))
        return super().hybrid(context_id, text, vector, filters, depth, expansion, ids_only=ids_only)


def filtered_feedback(mode: str, feedback: dict[str, Any]) -> tuple[Page, VectorRecordingStore]:
    """A request filtered to team aero in acme, over a corpus where a foreign item and a filtered-out
    one would both change the feedback if a first pass read them."""
    store = VectorRecordingStore(
        [
            item(1, "acme", "wing flutter onset", "aero"),
            item(2, "acme", "wing structures fatigue", "structures"),
            item(3, "globex", "wing vortex breakdown", "aero"),
        ]
    )
    embedder = FixedEmbedder({"wing": [1.0, 0.0]}, dimension=2)
    capabilities = Capabilities(search=store, graph=None, embedder=embedder)
    unpaged = Unpaged(capabilities, CallerContext("acme"), config=PRESETS["default"])
    aero = {"equals": {"key": "metadata.team", "value": "aero"}}
    return unpaged.first_page(request(mode=mode, filter=aero, feedback=feedback)), store


@pytest.mark.parametrize(
    ("mode", "first_pass"), [("lexical", "lexical"), ("hybrid", "lexical"), ("hybrid", "fused")]
)
def test_feedback_reads_only_the_callers_filtered_hits(mode: str, first_pass: str) -> None:
    result, _ = filtered_feedback(mode, {"first_pass": first_pass, "weight": 0.3})
    assert result.applied.expansion_terms is not None
    assert set(result.applied.expansion_terms) <= {"wing", "flutter", "onset"}  # p-1's words only
    assert [h.id for h in result.hits] == ["acme:p-1"]


@pytest.mark.parametrize(
    ("mode", "first_pass"), [("vector", "lexical"), ("hybrid", "lexical"), ("hybrid", "fused")]
)
def test_rocchio_moves_towards_the_callers_filtered_hits_only(mode: str, first_pass: str) -> None:
    _, store = filtered_feedback(mode, {"first_pass": first_pass})
    # p-1's vector is [1, 1]; p-2's [1, 2] (filtered out) or globex's p-3 [1, 3] would pull further.
    weight = FeedbackOptions().vector_weight
    assert store.searched[-1] == pytest.approx(rocchio([1.0, 0.0], [[1.0, 1.0]], weight))


def test_the_default_preset_ranks_in_one_pass_and_a_request_can_ask_for_feedback() -> None:
    # Rocchio lost significantly on a multi-hop set (docs/QUALITY.md): feedback is on request only.
    assert PRESETS["default"].feedback is None
    assert PRESETS["fast"].feedback is None
    store = InMemoryStore([item(1, "acme", "wing flutter", "aero")])
    embedder = FixedEmbedder({"wing": [1.0, 0.0]}, dimension=2)
    unpaged = Unpaged(
        Capabilities(search=store, graph=None, embedder=embedder),
        CallerContext("acme"),
        config=PRESETS["default"],
    )
    unpaged.first_page(request())
    assert store.calls == ["hybrid"]
    store.calls.clear()
    unpaged.first_page(request(feedback={"enabled": True}))
    # BM25's top hits with their texts and vectors (searched while the query is embedded), then the
    # moved hybrid search.
    assert store.calls == ["lexical_feedback", "hybrid"]
    store.calls.clear()
    unpaged.first_page(request(mode="vector", feedback={"enabled": True}))
    assert store.calls == ["vector_feedback", "vector"]
    store.calls.clear()
    unpaged.first_page(request(feedback={"first_pass": "fused"}))
    assert store.calls == ["hybrid", "vectors", "hybrid"]
    assert PRESETS["thorough"].feedback == FeedbackOptions(first_pass="fused", vector_weight=0.25)


def test_hybrid_feedback_without_an_embedder_searches_nothing() -> None:
    store = InMemoryStore([item(1, "acme", "wing flutter", "aero")])
    unpaged = Unpaged(
        Capabilities(search=store, graph=None, embedder=None),
        CallerContext("acme"),
        config=PRESETS["default"],
    )
    result = unpaged.first_page(request())
    assert (result.supported, result.missing_capability) == (False, "embedder")
    assert store.calls == []  # the first pass would run beside the embedding: it must not start
