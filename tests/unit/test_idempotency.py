"""Idempotency keys, each state of a key against the in-memory store (the DynamoDB store's twin, proven
on the real table in tests/integration/test_idempotency_stack.py), then through the retrieve handler: the
Idempotency-Key header, a packet-only repeat, and the clear answer without a session."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import InvalidRequestError
from retrieval_core.models.hits import Hit
from retrieval_core.policy import (
    DuplicateQueryError,
    IdempotencyKeyReusedError,
    Replay,
    RequestInProgressError,
    SessionBudgetExhaustedError,
)
from retrieval_core.policy.policy import kept_answer, replay_of
from retrieval_core.policy.state import SessionScope
from test_handlers import fakes, retrieve  # noqa: F401  (its autouse fixture composes the handler)
from test_policy_run import hit, make_policy, returning

from tests.policy_runs import Ran, run_policy

QUERY = {"mode": "lexical", "text": "who leads payments"}


def kept(hits: list[Hit]) -> bytes:
    """What the retrieve service keeps: here, the hit ids (the policy keeps the receipt beside them)."""
    return json.dumps({"ids": [h.id for h in hits]}).encode()


def run(
    policy: Any, key: str | None, query: Mapping[str, Any] = QUERY, execute: Any = None, **kw: Any
) -> Any:
    return run_policy(
        policy,
        query,
        context_id="acme",
        session_id=kw.pop("session", "s1"),
        idempotency_key=key,
        keep=kept,
        execute=execute or returning("acme:a", "acme:b"),
        **kw,
    )


def test_completed_the_same_request_gets_the_kept_answer_without_running_or_counting() -> None:
    policy, store, clock = make_policy(limit=1)
    first = run(policy, "k-1")
    executed: list[str] = []

    again = run(policy, "k-1", execute=lambda q: executed.append("ran") or [hit("acme:z")])

    assert isinstance(again, Replay) and executed == []
    assert again.answer == kept(first.result) and again.receipt == first.receipt  # same hits, same receipt
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1  # budget of one: still one
    with pytest.raises(SessionBudgetExhaustedError):  # and the replay did not make room either
        run(policy, None, {"mode": "lexical", "text": "another"})


def test_completed_replays_even_when_the_budget_is_spent() -> None:
    policy, _, _ = make_policy(limit=1)
    run(policy, "k-1")
    assert isinstance(run(policy, "k-1"), Replay)


def test_completed_another_request_with_the_key_is_422_and_runs_nothing() -> None:
    policy, store, clock = make_policy()
    run(policy, "k-1")
    with pytest.raises(IdempotencyKeyReusedError) as reused:
        run(policy, "k-1", {"mode": "lexical", "text": "something else"}, execute=pytest.fail)
    body = reused.value.to_body()
    assert (status_of(reused.value), body["error"], body["field"]) == (
        422,
        "idempotency_key_reused",
        "idempotency_key",
    )
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1


def test_in_progress_a_second_call_with_the_key_is_409_while_the_first_runs() -> None:
    policy, store, clock = make_policy()
    inner: list[Exception] = []

    def asks_again(query: Mapping[str, Any]) -> list[Hit]:
        try:
            run(policy, "k-1")
        except RequestInProgressError as busy:
            inner.append(busy)
        return [hit("acme:a")]

    assert run(policy, "k-1", execute=asks_again).receipt.sequence == 1
    (busy,) = inner
    assert (status_of(busy), busy.to_body()["error"]) == (409, "request_in_progress")
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1
    assert isinstance(run(policy, "k-1"), Replay)  # and once it ended, the answer


def test_released_a_failed_request_frees_its_key_for_the_retry() -> None:
    policy, _, _ = make_policy()

    def down(query: Mapping[str, Any]) -> list[Hit]:
        raise ConnectionError("backend down")

    with pytest.raises(ConnectionError):
        run(policy, "k-1", execute=down)
    retried = run(policy, "k-1")
    assert isinstance(retried, Ran) and retried.receipt.sequence == 1


def test_a_refused_request_frees_its_key_and_keeps_todays_refusals() -> None:
    policy, _, _ = make_policy(limit=2)
    run(policy, None)  # answered without a key
    with pytest.raises(DuplicateQueryError) as duplicate:
        run(policy, "k-1")  # the same question with a key: still the seen-set's 409
    assert duplicate.value.original_sequence == 1
    other = run(policy, "k-1", {"mode": "lexical", "text": "a new question"})
    assert isinstance(other, Ran) and other.receipt.sequence == 2


def test_without_a_key_a_repeat_is_still_a_duplicate() -> None:
    policy, _, _ = make_policy()
    run(policy, "k-1")
    with pytest.raises(DuplicateQueryError) as duplicate:
        run(policy, None)
    assert duplicate.value.original_sequence == 1


def test_an_answer_that_was_not_kept_is_a_duplicate_naming_its_sequence() -> None:
    policy, _, _ = make_policy()
    run_policy(
        policy, QUERY, context_id="acme", session_id="s1", idempotency_key="k-1", execute=returning("acme:a")
    )
    with pytest.raises(DuplicateQueryError) as duplicate:
        run(policy, "k-1")
    assert duplicate.value.original_sequence == 1 and "not kept" in duplicate.value.message


def test_keys_belong_to_their_session() -> None:
    policy, _, _ = make_policy()
    run(policy, "k-1", session="s1")
    elsewhere = run(policy, "k-1", session="s2")
    assert isinstance(elsewhere, Ran) and elsewhere.receipt.session_id == "s2"


@pytest.mark.parametrize(
    ("session", "key"), [(None, "k-1"), ("s1", ""), ("s1", "has space"), ("s1", "x" * 257)]
)
def test_a_key_without_a_session_or_malformed_is_422(session: str | None, key: str) -> None:
    policy, _, _ = make_policy()
    with pytest.raises(InvalidRequestError) as invalid:
        run(policy, key, session=session, execute=pytest.fail)
    assert status_of(invalid.value) == 422 and invalid.value.to_body()["field"] == "idempotency_key"


# --- through the retrieve handler -------------------------------------------------------------------


def test_the_header_replays_a_lost_answer_and_a_packet_only_repeat_is_packed_anew() -> None:
    headers = {"X-Retrieval-Session": "run-1", "Idempotency-Key": "attempt-1"}
    body = {"mode": "lexical", "text": "payments"}
    status, first = retrieve(body, **headers)
    assert status == 200 and first["context_packet"] is None

    status, again = retrieve(body, **headers)
    assert status == 200 and again == first  # same hits, same receipt, same names

    status, packed = retrieve(body | {"pack": {"max_tokens": 200}}, **headers)
    assert status == 200 and packed["receipt"] == first["receipt"] and packed["hits"] == first["hits"]
    cited = {item["id"]: item["source_id"] for item in packed["context_packet"]["items"]}
    assert cited and cited == dict(
        zip([h["id"] for h in first["hits"]], first["receipt"]["source_ids"], strict=True)
    )

    status, reused = retrieve({"mode": "lexical", "text": "alice"}, **headers)
    assert (status, reused["error"]) == (422, "idempotency_key_reused")
    assert retrieve({"mode": "lexical", "text": "alice"}, **{"X-Retrieval-Session": "run-1"})[0] == 200
    status, spent = retrieve({"mode": "lexical", "text": "memo"}, **{"X-Retrieval-Session": "run-1"})
    assert (status, spent["error"]) == (429, "session_budget_exhausted")  # budget 2: the replays took none


def test_a_key_without_a_session_is_a_clear_422() -> None:
    status, body = retrieve({"mode": "lexical", "text": "payments"}, **{"Idempotency-Key": "attempt-1"})
    assert (status, body["error"], body["field"]) == (422, "invalid_request", "idempotency_key")
    assert "session" in body["message"]
    status, body = retrieve(
        {"mode": "lexical", "text": "payments", "session_id": "s", "idempotency_key": " "}
    )
    assert status == 422 and body["fields"][0]["field"] == "idempotency_key"


def test_a_kept_answer_replays_with_its_receipt_and_the_older_form_replays_nothing() -> None:
    first = run(make_policy()[0], "k-1")
    assert isinstance(first, Ran)
    answer = b'{"ids": ["acme:a"]}\n{"second": "line"}'  # an answer's own newlines stay its own
    assert replay_of(kept_answer(answer, first.receipt)) == Replay(answer, first.receipt)
    # Before receipts were kept beside answers the whole response was kept, one line of JSON: that is
    # answered as a duplicate whose answer was not kept (409), never as a fault.
    assert replay_of(b'{"mode": "lexical", "hits": [], "receipt": {}}') is None
