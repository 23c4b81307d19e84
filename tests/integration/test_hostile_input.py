"""Hostile request bodies against the real OpenSearch node: what the edge lets through, OpenSearch
answers; what OpenSearch would refuse, the edge answers with a 422 naming the field (never a 503)."""

from __future__ import annotations

import pytest
from corpus_stack import retrieve
from retrieval_core.config import Settings
from retrieval_core.retrieval.requests import MAX_TEXT_TERMS

DIMENSION = 384
EMOJI = "\U0001f600"


@pytest.mark.parametrize(
    "vector",
    [
        [0.0] * DIMENSION,
        [1e308] * DIMENSION,
        [5e-324] * DIMENSION,
        [-1e39] + [0.5] * (DIMENSION - 1),
        [1e19] * DIMENSION,
        [10**400] + [1] * (DIMENSION - 1),
    ],
    ids=["zeros", "1e308", "5e-324", "component-past-float32", "length-past-float32", "huge-int"],
)
@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_unscorable_vectors_are_422(corpus_settings: Settings, mode: str, vector: list[float]) -> None:
    status, body = retrieve("acme", {"mode": mode, "text": "payments", "vector": vector})
    assert status == 422, body
    assert body["fields"][0]["field"].startswith("vector")


@pytest.mark.parametrize(
    "vector",
    [[1e-20] * DIMENSION, [5e17] * DIMENSION, [0.0] * (DIMENSION - 1) + [1e-15], [-1.0] * DIMENSION],
    ids=["tiny", "large", "one-small-component", "negative"],
)
def test_extreme_but_scorable_vectors_are_answered(corpus_settings: Settings, vector: list[float]) -> None:
    status, body = retrieve("acme", {"mode": "vector", "vector": vector, "top_k": 3})
    assert status == 200, body
    assert len(body["hits"]) == 3


@pytest.mark.parametrize(
    "text",
    [" ".join(["x"] * 1500), EMOJI * 1100, "x " * (MAX_TEXT_TERMS + 1)],
    ids=["1500-words", "1100-emoji", "one-term-too-many"],
)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_texts_with_too_many_terms_are_422(corpus_settings: Settings, mode: str, text: str) -> None:
    status, body = retrieve("acme", {"mode": mode, "text": text})
    assert status == 422, body
    assert body["fields"][0]["field"] == "text"


@pytest.mark.parametrize(
    "text",
    [
        "x " * MAX_TEXT_TERMS,
        " ".join(f"{n:x}" for n in range(MAX_TEXT_TERMS)),
        EMOJI * MAX_TEXT_TERMS,
        "\u4e2d" * MAX_TEXT_TERMS,
        "\u3042" * MAX_TEXT_TERMS,
        ("payments, " * MAX_TEXT_TERMS)[:3999],
    ],
    ids=["words", "distinct-words", "emoji", "han", "hiragana", "punctuated"],
)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_texts_at_the_term_limit_are_answered(corpus_settings: Settings, mode: str, text: str) -> None:
    status, body = retrieve("acme", {"mode": mode, "text": text})
    assert status == 200, body
