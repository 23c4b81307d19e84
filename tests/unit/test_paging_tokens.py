"""Paging tokens: a token opens only for the context, request and time it was issued for."""

from __future__ import annotations

import pytest
from retrieval_core.entrypoints.status import status_of
from retrieval_core.retrieval.errors import (
    NextTokenExpiredError,
    NextTokenInvalidError,
    NextTokenMismatchError,
)
from retrieval_core.retrieval.paging import PagePosition, PageTokens, fingerprint

TOKENS = PageTokens(b"k" * 32)
REQUEST = fingerprint({"mode": "lexical", "text": "payments", "top_k": 5})
AT = PagePosition("cursor-1", 5)
TOKEN = TOKENS.issue("acme", AT, REQUEST, expires_at=2_000)


def test_a_token_opens_for_its_context_request_and_time() -> None:
    assert TOKENS.open(TOKEN, "acme", REQUEST, now=1_000) == AT


def test_page_size_session_and_pack_are_not_part_of_the_request() -> None:
    other = {
        "mode": "lexical",
        "text": " payments ",
        "top_k": 50,
        "session_id": "s",
        "pack": {"max_chars": 9},
    }
    assert fingerprint(other) == REQUEST
    assert fingerprint({"mode": "lexical", "text": "payment"}) != REQUEST


@pytest.mark.parametrize("position", range(len(TOKEN)))
def test_any_altered_character_is_invalid(position: int) -> None:
    altered = TOKEN[:position] + ("x" if TOKEN[position] != "x" else "y") + TOKEN[position + 1 :]
    with pytest.raises(NextTokenInvalidError):
        TOKENS.open(altered, "acme", REQUEST, now=1_000)


def test_another_context_fails_exactly_like_an_altered_token() -> None:
    with pytest.raises(NextTokenInvalidError) as foreign:
        TOKENS.open(TOKEN, "globex", REQUEST, now=1_000)
    with pytest.raises(NextTokenInvalidError) as altered:
        TOKENS.open(TOKEN[:-1] + "x", "acme", REQUEST, now=1_000)
    assert foreign.value.to_body() == altered.value.to_body()


def test_another_key_is_invalid() -> None:
    with pytest.raises(NextTokenInvalidError):
        PageTokens(b"o" * 32).open(TOKEN, "acme", REQUEST, now=1_000)


def test_expiry_and_mismatch_are_their_own_errors() -> None:
    with pytest.raises(NextTokenExpiredError):
        TOKENS.open(TOKEN, "acme", REQUEST, now=2_000)
    with pytest.raises(NextTokenMismatchError):
        TOKENS.open(TOKEN, "acme", fingerprint({"mode": "lexical", "text": "other"}), now=1_000)


def test_statuses() -> None:
    assert status_of(NextTokenInvalidError()) == 400
    assert status_of(NextTokenMismatchError()) == 400
    assert status_of(NextTokenExpiredError()) == 410
