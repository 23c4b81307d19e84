"""The default query ports: normalization, the dedup key, input validation and id authorization."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_core.errors import InvalidRequestError
from retrieval_core.policy.policy import allow_within_context
from retrieval_core.policy.query import (
    MAX_QUERY_BYTES,
    PreparedQuestion,
    canonical_json,
    canonical_key,
    checked_key,
    prepare_query,
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
def test_a_prepared_question_spells_its_canonical_json_byte_for_byte(
    question: dict, leaving_out: frozenset[str]
) -> None:
    prepared = PreparedQuestion(question)
    kept = {k: v for k, v in question.items() if k not in leaving_out}
    assert prepared.spelled(leaving_out) == canonical_json(kept)
    assert prepared.spelled() == canonical_json(question)  # the kept field spellings serve every call
    assert canonical_key(prepared, leaving_out) == canonical_key(kept)
