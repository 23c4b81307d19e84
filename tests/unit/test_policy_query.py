"""The default query ports: normalization, the dedup key, input validation and id authorization."""

from __future__ import annotations

import base64
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_core.errors import InvalidRequestError
from retrieval_core.policy.policy import allow_within_context
from retrieval_core.policy.query import (
    FLOATS_PREFIX,
    MAX_QUERY_BYTES,
    PreparedQuestion,
    canonical_json,
    canonical_key,
    canonical_spelling,
    checked_key,
    prepare_query,
    spelled_member,
)


def key_of(query: dict) -> str:
    return canonical_key(prepare_query(query))


def test_key_ignores_key_order_whitespace_and_kinds_order() -> None:
    base = key_of({"mode": "hybrid", "text": "who leads payments", "kinds": ["proposition", "document"]})
    assert (
        key_of({"kinds": ["document", "proposition"], "text": "  who   leads\npayments ", "mode": "hybrid"})
        == base
    )
    assert (
        key_of(
            {"mode": "hybrid", "text": "who leads payments", "kinds": ["document", "proposition", "document"]}
        )
        == base
    )


def test_key_ignores_session_fields_and_nulls() -> None:
    base = key_of({"mode": "lexical", "text": "x"})
    assert (
        key_of({"mode": "lexical", "text": "x", "session_id": "s1", "session_limit": 3, "top_k": None})
        == base
    )


def test_key_separates_different_questions() -> None:
    keys = {
        key_of({"mode": "lexical", "text": "payments"}),
        key_of({"mode": "lexical", "text": "payment"}),
        key_of({"mode": "hybrid", "text": "payments"}),
        key_of({"mode": "lexical", "text": "payments", "top_k": 5}),
        key_of({"mode": "lexical", "text": "payments", "window": {"from": "a", "to": "b"}}),
        key_of({"mode": "lexical", "text": "payments", "window": {"from": "b", "to": "a"}}),
    }
    assert len(keys) == 6


def test_prepare_keeps_order_of_ordered_lists() -> None:
    assert prepare_query({"vector": [0.3, 0.1]}) == {"vector": [0.3, 0.1]}


@pytest.mark.parametrize(
    "query",
    [None, [], "text", {}, {"text": float("nan")}, {"text": object()}, {"text": "x" * (MAX_QUERY_BYTES + 1)}],
    ids=["none", "list", "string", "empty", "nan", "object", "too-large"],
)
def test_malformed_queries_are_invalid_requests(query: object) -> None:
    with pytest.raises(InvalidRequestError):
        checked_key(prepare_query(query))


def test_the_checked_key_is_the_canonical_key() -> None:
    query = prepare_query({"mode": "vector", "vector": [0.25, -1.5], "kinds": ["trace", "document"]})
    assert checked_key(query) == canonical_key(query)
    assert checked_key(query) != checked_key({**query, "top_k": 3})


def test_default_authorization_treats_foreign_ids_like_missing_ones() -> None:
    """No refusal for another context's ids: the reads find nothing for them, as for a missing id."""
    assert allow_within_context("acme", {"entity_id": "globex:e-1"}) is None
    assert allow_within_context("acme", {"entity_id": "acme:e-404"}) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, derandomize=True)
@given(
    question=st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=6),
    leaving_out=st.frozensets(st.text(max_size=6), max_size=3),
)
def test_a_prepared_question_spells_as_the_plain_question_and_as_canonical_json_without_vectors(
    question: dict, leaving_out: frozenset[str]
) -> None:
    prepared = PreparedQuestion(question)
    kept = {k: v for k, v in question.items() if k not in leaving_out}
    assert prepared.spelled(leaving_out) == canonical_spelling(kept)
    assert prepared.spelled() == canonical_spelling(question)  # the kept member spellings serve every call
    assert canonical_key(prepared, leaving_out) == canonical_key(kept)
    if not any(_floats(v) for v in question.values()):
        assert prepared.spelled() == canonical_json(question)  # byte for byte


def _floats(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(type(v) is float for v in value)


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=200, derandomize=True)
@given(vector=st.lists(finite, min_size=1, max_size=64))
def test_a_vector_is_spelled_as_its_exact_doubles(vector: list[float]) -> None:
    name, _, spelled = spelled_member("vector", vector).partition(":")
    assert name == '"vector"' and spelled.startswith(FLOATS_PREFIX)
    raw = base64.b64decode(spelled.removeprefix(FLOATS_PREFIX))
    assert list(struct.unpack(f"<{len(vector)}d", raw)) == vector  # nothing lost: one spelling per vector


def test_vectors_key_apart_unless_they_are_the_same_doubles() -> None:
    keys = {
        key_of({"mode": "vector", "vector": [0.1, 0.2]}),
        key_of({"mode": "vector", "vector": [0.2, 0.1]}),
        key_of({"mode": "vector", "vector": [0.1, 0.2000000000000001]}),
        key_of({"mode": "vector", "vector": [0.1, 0.2, 0.0]}),
        key_of({"mode": "vector", "vector": [1, 0.2]}),  # not all floats: spelled as JSON
        key_of({"mode": "vector", "vector": "f64:mZmZmZmZuT+amZmZmZnJPw=="}),  # a string is JSON-quoted
    }
    assert len(keys) == 6
    assert key_of({"vector": [0.1, 0.2], "mode": "vector"}) == key_of(
        {"mode": "vector", "vector": [0.1, 0.2]}
    )


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_vector_with_a_number_that_is_not_finite_is_an_invalid_request(bad: float) -> None:
    with pytest.raises(InvalidRequestError):
        checked_key(prepare_query({"mode": "vector", "vector": [0.5, bad]}))


def test_a_1024_dimension_vector_fits_the_query_size() -> None:
    """Packed, 1,024 doubles are 10.9 KB of spelling; as JSON they were ~20 KB, past the 16 KB limit."""
    vector = [(-1) ** i * (i + 0.123456789) / 1024 for i in range(1024)]
    assert len(canonical_json(vector)) > MAX_QUERY_BYTES
    checked_key(prepare_query({"mode": "vector", "vector": vector}))
