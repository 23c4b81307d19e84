"""The rerank stage through the ranking and the retrieve service: the order, paging and receipts follow the
reranked order; a failing reranker keeps the fused order and says why in ``applied.rerank``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from fakes_store import FixedEmbedder, InMemoryStore
from retrieval_core.context import CallerContext
from retrieval_core.errors import BackendUnavailableError, DeadlineExceededError
from retrieval_core.models.item import Item
from retrieval_core.ports import Capabilities
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.rerank import RerankOptions
from unpaged import Unpaged

ACME = CallerContext("acme")
EMBEDDER = FixedEmbedder({"wing lift": [1.0, 0.0]}, dimension=2)


def item(n: int, text: str, embedding: list[float], context: str = "acme") -> Item:
    return Item.model_validate(
        {
            "id": f"{context}:p-{n}",
            "context_id": context,
            "kind": "proposition",
            "text": text,
            "embedding": embedding,
            "created_at": "2026-03-01T00:00:00Z",
        }
    )


ITEMS = [
    item(1, "wing lift wing lift", [1.0, 0.0]),
    item(2, "wing lift at low speed", [0.9, 0.1]),
    item(3, "lift of a thin wing", [0.7, 0.7]),
    item(4, "wing flutter", [0.2, 0.9]),
    item(5, "wing lift in globex", [1.0, 0.0], context="globex"),
]


class ByLength:
    """Prefers shorter texts: an order the fusion would never produce on its own."""

    name = "test:by-length"

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.seen.append(list(texts))
        return [1.0 / len(text) for text in texts]


class Failing:
    name = "test:failing"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        raise self.error


def unpaged(reranker: Any = None, **config: Any) -> Unpaged:
    store = InMemoryStore(ITEMS)
    capabilities = Capabilities(search=store, graph=None, embedder=EMBEDDER, reranker=reranker)
    return Unpaged(capabilities, ACME, config=RetrievalConfig(**config))


def request(**fields: Any) -> RetrieveRequest:
    return RetrieveRequest.model_validate({"text": "wing lift", "top_k": 10} | fields)


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid"])
def test_a_model_reranks_the_top_and_reports_its_score(mode: str) -> None:
    plain = unpaged().first_page(request(mode=mode))
    reranker = ByLength()
    result = unpaged(reranker).first_page(request(mode=mode, rerank={"method": "model", "depth": 3}))
    pool = [h.id for h in plain.hits[:3]]
    by_length = sorted(plain.hits[:3], key=lambda h: (len(h.text), pool.index(h.id)))
    assert [h.id for h in result.hits[:3]] == [h.id for h in by_length]
    assert [h.id for h in result.hits[3:]] == [h.id for h in plain.hits[3:]]  # below the pool: unchanged
    assert result.applied.rerank == "test:by-length(depth=3)"
    assert [h.signals["rerank"].rank for h in result.hits[:3]] == [1, 2, 3]
    assert result.hits[0].signals["rerank"].score == pytest.approx(1 / len(result.hits[0].text))
    assert all("rerank" not in h.signals for h in result.hits[3:])
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)  # score still decreases down the ranking
    assert reranker.seen == [[h.text for h in plain.hits[:3]]]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (BackendUnavailableError(), "skipped: the rerank model is unavailable"),
        (DeadlineExceededError(), "skipped: the request's deadline left no time to rerank"),
    ],
)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_failing_reranker_keeps_the_fused_order_and_says_so(
    mode: str, error: Exception, reason: str
) -> None:
    plain = unpaged().first_page(request(mode=mode))
    result = unpaged(Failing(error)).first_page(request(mode=mode, rerank={"method": "model"}))
    assert [h.id for h in result.hits] == [h.id for h in plain.hits]
    assert [h.score for h in result.hits] == [h.score for h in plain.hits]
    assert result.applied.rerank == reason


def test_no_model_configured_is_said_not_failed() -> None:
    result = unpaged(None).first_page(request(mode="hybrid", rerank={"method": "model"}))
    assert result.applied.rerank == "skipped: no rerank model is configured for this deployment"
    fused = unpaged(None).first_page(request(mode="hybrid"))
    assert [h.id for h in result.hits] == [h.id for h in fused.hits] != []


def test_the_deployment_default_reranks_unless_the_request_says_none() -> None:
    config = {"rerank": RerankOptions(method="model", depth=2)}
    assert unpaged(ByLength(), **config).first_page(request(mode="lexical")).applied.rerank is not None
    off = unpaged(ByLength(), **config).first_page(request(mode="lexical", rerank={"method": "none"}))
    assert off.applied.rerank is None


def test_mmr_moves_a_near_duplicate_down() -> None:
    plain = unpaged().first_page(request(mode="vector"))
    assert [h.id for h in plain.hits[:2]] == ["acme:p-1", "acme:p-2"]  # p-2 nearly repeats p-1
    diverse = unpaged().first_page(
        request(mode="vector", rerank={"method": "mmr", "lambda": 0.3, "depth": 4})
    )
    assert diverse.hits[0].id == "acme:p-1"
    assert diverse.hits[1].id != "acme:p-2"
    assert diverse.applied.rerank == "mmr(lambda=0.3, depth=4)"


def test_graph_walk_is_never_reranked() -> None:
    assert (
        unpaged(ByLength()).prepared(request(mode="graph_walk", entity_id="acme:x")).tuning.reranks is False
    )


@pytest.mark.parametrize(
    "bad",
    [{"method": "bogus"}, {"depth": 0}, {"depth": 101}, {"lambda": 1.5}, {"lambda": -0.1}, {"extra": 1}],
)
def test_rerank_options_are_bounded(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="rerank"):
        request(mode="lexical", rerank=bad)


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid"])
def test_pages_follow_the_reranked_order(mode: str) -> None:
    from test_pages import MODES, Paging, ids

    paging = Paging()
    rerank = {"rerank": {"method": "mmr", "lambda": 0.5, "depth": 25}}
    single = paging.page(MODES[mode] | rerank | {"top_k": 30})
    plain = ids(paging.page(MODES[mode] | {"top_k": 30}))
    assert ids(single) != plain and sorted(ids(single)[:25]) == sorted(plain[:25])
    pages = paging.through(MODES[mode] | rerank | {"top_k": 10})
    every = ids(*pages)
    assert every[:30] == ids(single)  # the first page ranks shallower, yet the pool is the same
    assert len(every) == len(set(every))
    assert all(page.applied.rerank == "mmr(lambda=0.5, depth=25)" for page in pages[:1])


def test_through_the_handler_a_failing_reranker_is_a_200_that_says_skipped() -> None:
    import json

    from retrieval_core import bootstrap
    from retrieval_core.config import Settings
    from retrieval_core.policy import InMemorySessionStore, PolicyConfig, RetrievalPolicy
    from retrieval_dev.cli.events import api_event
    from retrieval_dev.cli.lambda_runtime import invoke

    store = InMemoryStore(ITEMS)
    capabilities = Capabilities(
        search=store, graph=None, embedder=EMBEDDER, reranker=Failing(BackendUnavailableError())
    )
    container = bootstrap.Container(
        Settings(rerank_model="amazon.rerank-v1:0"),  # a model is configured: reranking is the default
        overrides={
            "capabilities": capabilities,
            "items": store,
            "policy": RetrievalPolicy(InMemorySessionStore(), PolicyConfig()),
        },
    )
    with bootstrap.use(container):
        response = invoke(
            "retrieve",
            api_event("POST", "/v1/retrieve", "acme", body={"mode": "hybrid", "text": "wing lift"}),
        )
    body = json.loads(response["body"])
    assert response["statusCode"] == 200
    assert body["applied"]["rerank"] == "skipped: the rerank model is unavailable"
    assert body["hits"] and all("rerank" not in h["signals"] for h in body["hits"])
