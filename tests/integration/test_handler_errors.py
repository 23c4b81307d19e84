"""Errors through the real handlers: 4xx bodies name the field and change nothing; 5xx leak nothing."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import pytest
from corpus_stack import call, retrieve
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event, session_event
from retrieval_dev.cli.lambda_runtime import handler_module


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "lexical", "text": "x", "top_k": True}, "top_k"),
        ({"mode": "lexical", "text": "x", "top_k": "ten"}, "top_k"),
        ({"mode": "lexical", "text": "x", "weights": {"document": -1}}, "weights.document"),
        ({"mode": "lexical", "text": "x", "weights": {"document": float("nan")}}, "weights.document"),
        ({"mode": "lexical", "text": "x", "min_score": True}, "min_score"),
        ({"mode": "lexical", "text": "x", "min_score": 1.5}, "min_score"),
        ({"mode": "sideways", "text": "x"}, "mode"),
        ({"mode": "lexical"}, "text"),
        ({"mode": "vector", "vector": [0.1, 0.2, 0.3]}, "vector"),
        ({"mode": "lexical", "text": "x", "pack": {"max_tokens": 0}}, "pack.max_tokens"),
        ({"mode": "lexical", "text": "x", "pack": {"max_tokens": 10, "max_chars": 10}}, "pack.max_tokens"),
        ({"mode": "lexical", "text": "x", "surprise": 1}, "surprise"),
    ],
)
def test_malformed_requests_are_422_naming_the_field(
    corpus_settings: Settings, body: dict, field: str
) -> None:
    status, payload = retrieve("acme", body)
    assert status == 422, payload
    assert payload["error"] == "invalid_request"
    assert field in payload["message"]


def test_a_rejected_request_changes_nothing(corpus_settings: Settings) -> None:
    session = {"session_id": "s-reject-test"}
    assert retrieve("acme", {"mode": "lexical", "text": "x", "top_k": True} | session)[0] == 422
    status, _, _ = call(
        "retrieve",
        session_event("acme", "s-reject-test"),
    )
    assert status == 404  # no session was created by the rejected request


def test_no_claim_is_401_and_an_unlisted_context_is_403(corpus_settings: Settings) -> None:
    event = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "x"})
    event["requestContext"]["authorizer"] = None
    assert call("retrieve", event)[0] == 401
    event = api_event("POST", "/v1/retrieve", "acme,globex", body={"mode": "lexical", "text": "x"})
    event["headers"]["X-Context-Id"] = "initech"
    assert call("retrieve", event)[0] == 403


def test_a_backend_outage_is_a_clean_503_with_retry_after(
    corpus_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    unreachable = corpus_settings.model_copy(update={"opensearch_endpoint": "http://127.0.0.1:1"})
    with bootstrap.use(bootstrap.Container(unreachable)):
        status, body, headers = call(
            "retrieve",
            api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "payments"}),
        )
    assert status == 503
    assert headers.get("Retry-After") == "1"
    assert body == {
        "error": "backend_unavailable",
        "message": "A backing service is temporarily unavailable.",
    }
    text = json.dumps(body).lower()
    assert all(word not in text for word in ("opensearch", "127.0.0.1", "traceback", "dynamodb"))


def test_direct_invocation_needs_a_context_and_answers_like_the_api(corpus_settings: Settings) -> None:
    payload: dict[str, Any] = {"request": {"mode": "lexical", "text": "payments"}, "correlation_id": "exec-1"}
    status, body, _ = call("retrieve", payload)
    assert status == 422 and "context_id" in body["message"]
    status, body, _ = call("retrieve", payload | {"context_id": "acme"})
    assert status == 200 and body["hits"] and all(h["id"].startswith("acme:") for h in body["hits"])


def test_a_stored_item_the_hit_model_refuses_is_our_500_logged_with_the_request_id(
    fresh_settings: Settings, opensearch: Any
) -> None:
    # A stored created_at as epoch milliseconds (a date the index takes, a string the hit model does
    # not) was answered 422 "invalid_request", the caller blamed for our data, and logged nowhere.
    from stack_state import index_documents, load_lines

    line = {"id": "acme:odd-1", "context_id": "acme", "kind": "proposition", "text": "Quokka ledgers."}
    assert load_lines(fresh_settings, [json.dumps(line | {"created_at": "2026-03-02T09:00:00Z"})]).ok
    (stored,) = index_documents(opensearch, fresh_settings)
    opensearch.update(
        index=stored["_index"],
        id=stored["_id"],
        routing=stored["_routing"],
        body={"doc": {"created_at": 1_772_442_000_000}},
        refresh=True,
    )
    event = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "quokka ledgers"})
    event["requestContext"]["requestId"] = "req-stored-odd-1"
    # The function's own formatter on a stream of the test's: the lines the function logs.
    logger = handler_module("retrieve").tools.logger
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    try:
        with bootstrap.use(bootstrap.Container(fresh_settings)):
            status, body, _ = call("retrieve", event)
    finally:
        logger.removeHandler(handler)
    assert (status, body) == (500, {"error": "internal_error", "message": "An internal error occurred."})
    logged = [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
    (fault,) = [entry for entry in logged if entry.get("level") == "ERROR"]
    assert fault["correlation_id"] == "req-stored-odd-1" and "created_at" in fault["exception"]
    # The request door's own refusal is still the caller's 422, naming the field.
    event = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "x", "top_k": "ten"})
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        status, body, _ = call("retrieve", event)
    assert status == 422 and body["fields"][0]["field"] == "top_k"
