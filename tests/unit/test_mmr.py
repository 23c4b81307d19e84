"""MMR as a property: lambda = 1 is the relevance order itself; any lambda only ever reorders what the
search found for this caller under this filter (never an item of another context or outside the filter)."""

from __future__ import annotations

from typing import Any

from fakes_store import FixedEmbedder, InMemoryStore
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_core.context import CallerContext
from retrieval_core.models.item import Item
from retrieval_core.ports import Capabilities
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.mmr import mmr_order
from retrieval_core.retrieval.requests import RetrieveRequest
from unpaged import Unpaged

WORDS = ["wing", "lift", "shock", "flow"]
EMBEDDER = FixedEmbedder({w: [1.0, 0.5, 0.0] for w in WORDS}, dimension=3)
component = st.floats(min_value=-1, max_value=1, allow_nan=False).filter(lambda v: abs(v) > 1e-3)


@st.composite
def corpora(draw: Any) -> list[Item]:
    count = draw(st.integers(min_value=1, max_value=14))
    items = []
    for n in range(count):
        items.append(
            Item.model_validate(
                {
                    "id": f"{(context := draw(st.sampled_from(['acme', 'globex'])))}:p-{n}",
                    "context_id": context,
                    "kind": "proposition",
                    "text": " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))),
                    "embedding": draw(st.lists(component, min_size=3, max_size=3)),
                    "metadata": {"team": draw(st.sampled_from(["aero", "structures"]))},
                    "created_at": "2026-03-01T00:00:00Z",
                }
            )
        )
    return items


def ranked(items: list[Item], mode: str, text: str, rerank: dict[str, Any] | None, where: bool) -> list[str]:
    store = InMemoryStore(items)
    capabilities = Capabilities(search=store, graph=None, embedder=EMBEDDER)
    unpaged = Unpaged(capabilities, CallerContext("acme"), config=RetrievalConfig())
    body: dict[str, Any] = {"mode": mode, "text": text, "top_k": 20, "diversify": False}
    if rerank is not None:
        body["rerank"] = rerank
    if where:
        body["filter"] = {"equals": {"key": "metadata.team", "value": "aero"}}
    return [h.id for h in unpaged.first_page(RetrieveRequest.model_validate(body)).hits]


@settings(max_examples=40, deadline=None)
@given(
    corpora(),
    st.sampled_from(["lexical", "vector", "hybrid"]),
    st.sampled_from(WORDS),
    st.integers(min_value=1, max_value=20),
    st.booleans(),
)
def test_lambda_one_is_the_relevance_order(
    items: list[Item], mode: str, text: str, depth: int, where: bool
) -> None:
    plain = ranked(items, mode, text, None, where)
    assert ranked(items, mode, text, {"method": "mmr", "lambda": 1, "depth": depth}, where) == plain


@settings(max_examples=40, deadline=None)
@given(
    corpora(),
    st.sampled_from(["lexical", "vector", "hybrid"]),
    st.sampled_from(WORDS),
    st.floats(min_value=0, max_value=0.999),
    st.integers(min_value=1, max_value=20),
    st.booleans(),
)
def test_lambda_below_one_only_reorders_the_callers_filtered_hits(
    items: list[Item], mode: str, text: str, lambda_: float, depth: int, where: bool
) -> None:
    plain = ranked(items, mode, text, None, where)
    diverse = ranked(items, mode, text, {"method": "mmr", "lambda": lambda_, "depth": depth}, where)
    by_id = {item.id: item for item in items}
    assert sorted(diverse) == sorted(plain)  # the same hits, each once
    assert all(by_id[i].context_id == "acme" for i in diverse)
    if where:
        assert all(by_id[i].metadata["team"] == "aero" for i in diverse)
    assert diverse[depth:] == plain[depth:]  # below the pool nothing moves


def test_mmr_by_hand() -> None:
    # b repeats a; c is less relevant but different: with lambda 0.5, c comes before b.
    order = mmr_order([1.0, 0.9, 0.6], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], 0.5)
    assert [index for index, _ in order] == [0, 2, 1]
    assert order[0][1] == 0.5  # 0.5 * 1.0 - 0.5 * 0
    assert order[1][1] == 0.5 * 0.6  # c is orthogonal to a
    assert order[2][1] == 0.5 * 0.9 - 0.5 * 1.0
