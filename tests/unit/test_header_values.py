"""Request headers read one way everywhere (``entrypoints.wire``): names compare case-insensitively,
of two spellings of one name the later wins, and a value that is not text reads as absent."""

from __future__ import annotations

from retrieval_core.entrypoints.wire import IDEMPOTENCY_HEADER, SESSION_HEADER, header_value, header_values


def test_several_headers_come_back_in_the_order_asked() -> None:
    headers = {"idempotency-key": "k-1", "X-RETRIEVAL-SESSION": "s-1", "Other": "x"}
    assert header_values(headers, SESSION_HEADER, IDEMPOTENCY_HEADER) == ("s-1", "k-1")
    assert header_values(headers, IDEMPOTENCY_HEADER, SESSION_HEADER) == ("k-1", "s-1")


def test_an_absent_header_or_no_headers_read_as_none() -> None:
    assert header_values({"Other": "x"}, SESSION_HEADER, IDEMPOTENCY_HEADER) == (None, None)
    assert header_values(None, SESSION_HEADER) == (None,)


def test_the_later_spelling_wins_and_a_value_that_is_not_text_is_absent() -> None:
    headers = {"X-Retrieval-Session": "first", "x-retrieval-session": "second", "Idempotency-Key": 7}
    assert header_values(headers, SESSION_HEADER, IDEMPOTENCY_HEADER) == ("second", None)
    assert header_value(headers, SESSION_HEADER) == "second"
    assert header_value(headers, IDEMPOTENCY_HEADER) is None
