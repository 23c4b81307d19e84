"""Paging tokens: a token opens only for the context, request and time it was issued for."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.status import status_of
from retrieval_core.policy.policy import HITS
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.errors import (
    NextTokenExpiredError,
    NextTokenInvalidError,
    NextTokenMismatchError,
)
from retrieval_core.retrieval.modes import MODES
from retrieval_core.retrieval.paging import PagePosition, PageTokens, id_fingerprints
from retrieval_core.retrieval.plans import PreparedQuery, prepare
from retrieval_core.retrieval.requests import RetrieveRequest


def prepared(body: dict) -> PreparedQuery:
    request = RetrieveRequest.model_validate(body)
    return prepare(
        request,
        CallerContext("acme"),
        config=RetrievalConfig(),
        dimension=None,
        open_token=lambda token, context_id, fingerprint: PagePosition(5),
        plan_of=MODES.specs[request.mode].plan,
    )


def fingerprint(body: dict) -> str:
    return prepared(body).fingerprint


KEY = b"k" * 32
TOKENS = PageTokens(KEY)
REQUEST = fingerprint({"mode": "lexical", "text": "payments", "top_k": 5})
AT = PagePosition(10, "cursor-1")
TOKEN = TOKENS.issue("acme", AT, REQUEST, expires_at=2_000)
FIRST = PagePosition(5, shown=id_fingerprints(f"acme:p-{i}" for i in range(5)))
FIRST_TOKEN = TOKENS.issue("acme", FIRST, REQUEST, expires_at=2_000)


def test_a_token_opens_for_its_context_request_and_time() -> None:
    assert TOKENS.open(TOKEN, "acme", REQUEST, now=1_000) == AT
    assert TOKENS.open(FIRST_TOKEN, "acme", REQUEST, now=1_000) == FIRST


def test_a_first_page_token_names_no_cursor_and_fits_a_request_at_the_largest_top_k() -> None:
    shown = id_fingerprints(f"acme:proposition-{i:06d}" for i in range(100))
    token = TOKENS.issue("acme", PagePosition(100, shown=shown), REQUEST, expires_at=2_000_000_000)
    opened = TOKENS.open(token, "acme", REQUEST, now=1_000)
    assert opened.cursor_id is None and opened.shown == shown and len(shown) == 100
    RetrieveRequest.model_validate({"mode": "lexical", "text": "payments", "next_token": token})


def test_tampered_fingerprints_are_invalid() -> None:
    version, fields, _, mac = FIRST_TOKEN.split(".")
    for other in ({"acme:p-9"}, {f"acme:p-{i}" for i in range(4)}, set()):
        forged = base64.urlsafe_b64encode(b"".join(sorted(id_fingerprints(other)))).rstrip(b"=").decode()
        with pytest.raises(NextTokenInvalidError):
            TOKENS.open(f"{version}.{fields}.{forged}.{mac}", "acme", REQUEST, now=1_000)


def test_a_version_1_token_is_invalid() -> None:
    fields = {"c": "cursor-1", "o": 5, "e": 2_000, "q": REQUEST}
    payload = base64.urlsafe_b64encode(json.dumps(fields).encode()).rstrip(b"=").decode()
    mac = hmac.new(KEY, f"p1|acme|{payload}".encode(), hashlib.sha256).digest()
    old = f"p1.{payload}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    with pytest.raises(NextTokenInvalidError):
        TOKENS.open(old, "acme", REQUEST, now=1_000)


def test_page_size_session_and_pack_are_not_part_of_the_request() -> None:
    other = {
        "mode": "lexical",
        "text": " payments ",
        "top_k": 50,
        "session_id": "s",
        "pack": {"max_chars": 900},
    }
    assert fingerprint(other) == REQUEST
    assert fingerprint({"mode": "lexical", "text": "payment"}) != REQUEST


@pytest.mark.parametrize(("token", "position"), [(t, p) for t in (TOKEN, FIRST_TOKEN) for p in range(len(t))])
def test_any_altered_or_removed_character_is_invalid(token: str, position: int) -> None:
    altered = token[:position] + ("x" if token[position] != "x" else "y") + token[position + 1 :]
    removed = token[:position] + token[position + 1 :]
    for bad in (altered, removed):
        with pytest.raises(NextTokenInvalidError):
            TOKENS.open(bad, "acme", REQUEST, now=1_000)


def test_another_context_fails_exactly_like_an_altered_token() -> None:
    with pytest.raises(NextTokenInvalidError) as foreign:
        TOKENS.open(FIRST_TOKEN, "globex", REQUEST, now=1_000)
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


@pytest.mark.parametrize(
    "body",
    [
        {
            "mode": "lexical",
            "text": "  payments   team ",
            "top_k": 7,
            "session_id": "s",
            "pack": {"max_chars": 900},
        },
        {"mode": "vector", "vector": [0.5, -0.25, 1e-7], "kinds": ["trace", "document"], "min_score": 0.1},
        {
            "mode": "hybrid",
            "text": "who leads",
            "vector": [1.0, 2.0],
            "weights": {"document": 0.5},
            "depth": 9,
        },
        {"mode": "entity", "entity_id": "acme:person/alice", "statuses": ["STALE", "ACTIVE"]},
        {"mode": "lexical", "text": "x", "filter": {"equals": {"key": "metadata.team", "value": "pay"}}},
        {"mode": "temporal", "window": {"start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z"}},
    ],
)
def test_one_spelling_serves_the_policy_and_the_token(body: dict) -> None:
    """The question is spelled once at the door: the policy keys it as it is (no second normal form),
    and the token's fingerprint ignores only what a continuation may change (page size, token,
    presentation, session)."""
    query = prepared(body)
    assert HITS.prepare(query.question) is query.question
    assert HITS.prepare(dict(query.question)) == query.question  # already in normal form
    continued = body | {"top_k": 3, "next_token": "t", "include": ["text"], "session_id": "other"}
    assert fingerprint(continued) == query.fingerprint
    assert prepared(continued).question != query.question  # a continuation is no duplicate
