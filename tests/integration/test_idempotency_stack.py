"""Idempotency keys and the session's round trips on the real stack (the retrieve handler, the sample
corpus in OpenSearch, the Sessions table in moto): a lost response is replayed, a reused key is 422, a
second call while the first runs is 409, and none of them spends budget. Every DynamoDB call of the
handler is recorded from the container's own client."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from corpus_stack import call
from retrieval_core import bootstrap
from retrieval_core.adapters.dynamodb_client import dynamodb_client
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event, session_event
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module
from stack_state import REPO

from dev.sample import known

QUERY = next(q for q in known.LEXICAL_QUERIES if q.context == "acme")
BODY = {"mode": "lexical", "text": QUERY.text, "top_k": 3}
LONG_RUNNING_MS = 300_000
CONCURRENT_EVENT = REPO / "events" / "retrieve" / "409-idempotent-concurrent-in-progress.json"


class Calls:
    """The Sessions-table calls of the handler container's DynamoDB client, by operation, in order."""

    def __init__(self, settings: Settings) -> None:
        self.table = settings.sessions_table
        self.seen: list[tuple[str, dict[str, Any]]] = []
        client = dynamodb_client(bootstrap.container().settings)
        client.meta.events.register("provide-client-params.dynamodb", self._note)

    def _note(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        if params.get("TableName") == self.table:
            self.seen.append((model.name, params))

    def take(self) -> list[str]:
        taken, self.seen = self.seen, []
        return [name for name, _ in taken]


@pytest.fixture
def calls(corpus_settings: Settings) -> Iterator[Calls]:
    yield Calls(corpus_settings)


def ask(session: str, key: str | None, body: dict[str, Any] = BODY) -> tuple[int, dict[str, Any]]:
    headers = {"X-Retrieval-Session": session} | ({"Idempotency-Key": key} if key else {})
    event = api_event("POST", "/v1/retrieve", "acme", body=body)
    event["headers"].update(headers)
    status, payload, _ = call("retrieve", event)
    return status, payload


def held_call(event: dict[str, Any]) -> int:
    """The event through a function with a long timeout: its deadline (and its key's lock) outlasts the
    time the test holds its search."""
    context = LambdaContext(function_name="retrieve", timeout_ms=LONG_RUNNING_MS)
    status: int = handler_module("retrieve").lambda_handler(event, context)["statusCode"]
    return status


def count(session: str) -> int:
    status, body, _ = call("retrieve", session_event("acme", session))
    assert status == 200, body
    answered: int = body["count"]
    return answered


def test_a_lost_response_is_replayed_for_one_small_read_and_counts_once(calls: Calls) -> None:
    session, key = f"s-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    status, first = ask(session, key)  # the answer the network lost
    assert status == 200 and first["hits"], first
    assert sorted(calls.take()) == [
        "PutItem",
        "PutItem",
        "PutItem",
        "Query",
    ]  # lock + log read, entry + answer

    status, again = ask(session, key)
    assert (status, again) == (200, first)  # same hits, same receipt, same S# names
    assert calls.take() == ["GetItem"]  # this container knows the key was answered: one small read

    bootstrap.container().policy._store.forget()  # type: ignore[attr-defined]  # a container new to it
    status, elsewhere = ask(session, key)
    assert (status, elsewhere) == (200, first)
    assert sorted(calls.take()) == ["GetItem", "PutItem", "Query"]  # its lock refused, the log, the answer

    status, packed = ask(session, key, BODY | {"pack": {"max_tokens": 300}})
    assert status == 200 and packed["receipt"] == first["receipt"] and packed["hits"] == first["hits"]
    assert {i["source_id"] for i in packed["context_packet"]["items"]} <= set(first["receipt"]["source_ids"])
    assert count(session) == 1


def test_a_reused_key_is_422_and_changes_nothing(calls: Calls) -> None:
    session, key = f"s-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    assert ask(session, key)[0] == 200
    status, body = ask(session, key, {"mode": "lexical", "text": "payments ledger migration"})
    assert (status, body["error"], body["field"]) == (422, "idempotency_key_reused", "idempotency_key")
    assert count(session) == 1
    assert ask(session, None, {"mode": "lexical", "text": "payments ledger migration"})[0] == 200  # not spent


def test_a_second_call_while_the_first_runs_is_409_and_the_first_counts_once(
    corpus_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second call is events/retrieve/409-idempotent-concurrent-in-progress.json (test_events.py
    cannot send it: it needs the first call still running)."""
    event = json.loads(CONCURRENT_EVENT.read_text())
    session = event["headers"]["X-Retrieval-Session"]
    store = bootstrap.container().store
    searching, release = threading.Event(), threading.Event()
    real = store.lexical

    def held(*args: Any, **kwargs: Any) -> Any:
        searching.set()
        assert release.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "lexical", held)
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(held_call, event)
        assert searching.wait(timeout=30)
        monkeypatch.setattr(store, "lexical", real)
        assert json.loads(event["body"]) == BODY
        status, body, _ = call("retrieve", event)
        assert (status, body["error"]) == (409, "request_in_progress")
        release.set()
        assert first.result() == 200
    status, again, _ = call("retrieve", event)  # once the first ended: its answer
    assert status == 200 and again["receipt"]["sequence"] == 1
    described = session_event("acme", session)
    described["requestContext"]["authorizer"] = event["requestContext"]["authorizer"]  # the same caller
    status, view, _ = call("retrieve", described)
    assert (status, view["count"]) == (200, 1)


def test_the_budget_is_unchanged_by_replays(corpus_settings: Settings) -> None:
    session, key = f"s-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    limited = {"session_limit": 2}
    assert ask(session, key, BODY | limited)[0] == 200
    for _ in range(3):
        assert ask(session, key, BODY | limited)[0] == 200
    assert ask(session, None, {"mode": "lexical", "text": "payments ledger migration"} | limited)[0] == 200
    status, body = ask(session, None, {"mode": "lexical", "text": "card issuing"} | limited)
    assert (status, body["error"], body["used"]) == (429, "session_budget_exhausted", 2)
    assert count(session) == 2


def test_a_session_request_takes_two_round_trips(calls: Calls) -> None:
    """Without a key: one read of the log's new tail, one conditional put of the next entry."""
    session = f"s-{uuid.uuid4().hex[:8]}"
    assert ask(session, None)[0] == 200
    assert calls.take() == ["Query", "PutItem"]
    status, body = ask(session, None)  # a duplicate this container already knows: no call at all
    assert (status, body["error"], body["original_sequence"]) == (409, "duplicate_query", 1)
    assert calls.take() == []
