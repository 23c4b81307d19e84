"""The policy run against the in-memory store: step order, failure accounting, receipts, effects,
limits, session scoping and the session read model."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import ForbiddenError, InvalidRequestError, NotFoundError
from retrieval_core.models.hits import Hit
from retrieval_core.models.vocabulary import Kind, Status
from retrieval_core.policy import (
    HITS,
    DuplicateQueryError,
    EffectInput,
    InMemorySessionStore,
    PolicyConfig,
    QueryForbiddenError,
    RetrievalKind,
    RetrievalPolicy,
    SessionBudgetExhaustedError,
    UnusableResultError,
)
from retrieval_core.policy.state import SessionScope

from tests.policy_runs import run_policy

START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
QUERY = {"mode": "lexical", "text": "who leads payments"}


class Clock:
    """Advances one second per reading, so every timestamp the policy takes is distinguishable."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        current = self.now
        self.now += timedelta(seconds=1)
        return current


def hit(item_id: str) -> Hit:
    return Hit(
        id=item_id, kind=Kind.PROPOSITION, text=f"text of {item_id}", score=1.0, status=Status.ACTIVE,
        created_at="2030-01-01T00:00:00Z",
    )  # fmt: skip


def returning(*ids: str) -> Callable[[Mapping[str, Any]], list[Hit]]:
    return lambda query: [hit(i) for i in ids]


def make_policy(
    limit: int = 5, kind: RetrievalKind = HITS, store: InMemorySessionStore | None = None
) -> tuple[RetrievalPolicy, InMemorySessionStore, Clock]:
    store = store or InMemorySessionStore(timedelta(hours=1))
    clock = Clock()
    return RetrievalPolicy(store, PolicyConfig(limit=limit, ttl_seconds=3600), kind, clock), store, clock


def ask(policy: RetrievalPolicy, text: str, session: str | None = "s1", context: str = "acme", **kw: Any):
    execute = kw.pop("execute", returning(f"{context}:p-1"))
    return run_policy(
        policy,
        {"mode": "lexical", "text": text},
        context_id=context,
        session_id=session,
        execute=execute,
        **kw,
    )


class RecordingStore(InMemorySessionStore):
    """The in-memory store, noting each transition in a shared call log."""

    def __init__(self, calls: list[str]) -> None:
        super().__init__(timedelta(hours=1))
        self.calls = calls

    def admit(self, *args: Any):
        self.calls.append("admit")
        return super().admit(*args)

    def complete(self, *args: Any):
        self.calls.append("complete")
        return super().complete(*args)

    def release(self, *args: Any):
        self.calls.append("release")
        return super().release(*args)


def recording_kind(
    calls: list[str], **effects: Callable[[EffectInput[Any]], Mapping[str, Any]]
) -> RetrievalKind:
    def noting(name: str, port: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any) -> Any:
            calls.append(name)
            return port(*args)

        return wrapped

    return RetrievalKind(
        prepare=noting("prepare", HITS.prepare),
        key=noting("key", HITS.key),
        authorize=noting("authorize", HITS.authorize),
        assert_result=noting("assert_result", HITS.assert_result),
        source_id=noting("source_id", HITS.source_id),
        effects={name: noting(f"effect:{name}", effect) for name, effect in effects.items()},
    )


def recorded_run(execute: Callable[..., Any], raises: type[Exception] | None = None) -> list[str]:
    """The ports and store transitions one run touches; ``raises`` is the error the run must end with."""
    calls: list[str] = []
    store = RecordingStore(calls)
    policy, _, _ = make_policy(kind=recording_kind(calls, audit=lambda given: {"n": 1}), store=store)

    def noted_execute(query: Mapping[str, Any]) -> Any:
        calls.append("execute")
        return execute(query)

    if raises is None:
        run_policy(policy, QUERY, context_id="acme", session_id="s1", execute=noted_execute)
    else:
        with pytest.raises(raises):
            run_policy(policy, QUERY, context_id="acme", session_id="s1", execute=noted_execute)
    return calls


# --- order of steps ---------------------------------------------------------------------------------


def test_steps_run_in_the_documented_order() -> None:
    calls = recorded_run(returning("acme:p-1"))
    assert calls == [
        "prepare", "key", "admit", "authorize", "execute", "assert_result",
        "source_id", "complete", "effect:audit",
    ]  # fmt: skip


def test_failing_execute_releases_the_slot_and_skips_the_rest() -> None:
    def boom(query: Mapping[str, Any]) -> list[Hit]:
        raise RuntimeError("backend down")

    calls = recorded_run(boom, raises=RuntimeError)
    assert calls[-3:] == ["authorize", "execute", "release"]


def test_malformed_query_touches_no_state() -> None:
    calls: list[str] = []
    policy, _, _ = make_policy(kind=recording_kind(calls), store=RecordingStore(calls))
    with pytest.raises(InvalidRequestError):
        run_policy(policy, {}, context_id="acme", session_id="s1", execute=returning())
    assert calls == ["prepare", "key"]


def test_duplicate_is_reported_before_budget_and_authorization() -> None:
    policy, _, _ = make_policy(limit=1)
    ask(policy, "q1")
    with pytest.raises(DuplicateQueryError):
        run_policy(
            policy, {"mode": "lexical", "text": "q1"}, context_id="acme", session_id="s1", execute=returning()
        )


def forbid_traces(context_id: str, query: Any) -> None:
    if "trace" in (query.get("kinds") or []):
        raise QueryForbiddenError()


def test_budget_is_checked_before_authorization() -> None:
    policy, _, _ = make_policy(limit=1, kind=replace(HITS, authorize=forbid_traces))
    ask(policy, "q1")
    with pytest.raises(SessionBudgetExhaustedError):
        run_policy(policy, {"kinds": ["trace"]}, context_id="acme", session_id="s1", execute=returning())


def test_forbidden_query_is_not_recorded() -> None:
    policy, store, clock = make_policy(kind=replace(HITS, authorize=forbid_traces))
    with pytest.raises(ForbiddenError):
        run_policy(policy, {"kinds": ["trace"]}, context_id="acme", session_id="s1", execute=returning())
    assert store.load(SessionScope("acme", "s1"), clock.now) is None


# --- failure accounting -----------------------------------------------------------------------------


def test_a_failed_query_does_not_count_and_may_be_asked_again() -> None:
    policy, store, clock = make_policy(limit=1)

    def boom(query: Mapping[str, Any]) -> list[Hit]:
        raise TimeoutError("slow backend")

    with pytest.raises(TimeoutError):
        ask(policy, "q1", execute=boom)
    assert store.load(SessionScope("acme", "s1"), clock.now) is None
    retry = ask(policy, "q1")  # the only slot is still free, and the key was released
    assert retry.receipt.sequence == 1 and retry.receipt.source_ids == ["S1"]
    with pytest.raises(SessionBudgetExhaustedError):
        ask(policy, "q2")


class FailingCompletionStore(InMemorySessionStore):
    """The in-memory store whose session write fails once, as a DynamoDB outage or an item limit would."""

    def __init__(self) -> None:
        super().__init__(timedelta(hours=1))
        self.failures = 1

    def complete(self, *args: Any):
        if self.failures:
            self.failures -= 1
            raise ConnectionError("session write failed")
        return super().complete(*args)


def test_a_failed_session_write_releases_the_claim() -> None:
    store = FailingCompletionStore()
    policy, _, clock = make_policy(limit=1, store=store)
    with pytest.raises(ConnectionError):
        ask(policy, "q1")
    outcome = ask(policy, "q1")
    assert outcome.receipt.sequence == 1
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1


def test_unusable_result_is_released_and_not_counted() -> None:
    policy, store, clock = make_policy(limit=1)
    with pytest.raises(UnusableResultError):
        ask(policy, "q1", execute=returning("globex:p-9"))
    assert store.load(SessionScope("acme", "s1"), clock.now) is None
    assert ask(policy, "q1").receipt.sequence == 1


def test_budget_refusal_records_nothing() -> None:
    policy, store, clock = make_policy(limit=1)
    ask(policy, "q1")
    with pytest.raises(SessionBudgetExhaustedError) as spent:
        ask(policy, "q2")
    assert status_of(spent.value) == 429
    assert spent.value.to_body() | {"message": ""} == {
        "error": "session_budget_exhausted", "message": "", "limit": 1, "used": 1,
    }  # fmt: skip
    with pytest.raises(SessionBudgetExhaustedError):
        ask(policy, "q2")  # still over budget, not a duplicate: the refusal left no trace
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1


def test_a_query_asked_again_while_in_flight_counts_once() -> None:
    """Without an idempotency key nothing is locked: both run, the one that completes second is the
    duplicate (the session's log decides, atomically)."""
    policy, store, clock = make_policy()
    inner: list[Any] = []

    def asks_again(query: Mapping[str, Any]) -> list[Hit]:
        inner.append(ask(policy, "q1"))
        return [hit("acme:p-1")]

    with pytest.raises(DuplicateQueryError) as second:
        ask(policy, "q1", execute=asks_again)
    assert second.value.original_sequence == 1 and inner[0].receipt.sequence == 1
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1


def test_duplicate_error_names_the_original_sequence() -> None:
    policy, _, _ = make_policy()
    ask(policy, "q1")
    ask(policy, "q2")
    with pytest.raises(DuplicateQueryError) as dup:
        run_policy(
            policy,
            {"text": " q2 ", "mode": "lexical"},
            context_id="acme",
            session_id="s1",
            execute=returning(),
        )
    body = dup.value.to_body()
    assert (status_of(dup.value), body["error"], body["original_sequence"]) == (409, "duplicate_query", 2)
    assert "#2" in body["message"]


# --- receipts -----------------------------------------------------------------------------------------


def test_receipts_count_timestamp_and_name_sources() -> None:
    policy, _, _ = make_policy()
    first = ask(policy, "q1", execute=returning("acme:a", "acme:b"))
    second = ask(policy, "q2", execute=returning("acme:b", "acme:c"))

    assert first.receipt.sequence == 1 and second.receipt.sequence == 2
    assert first.receipt.source_ids == ["S1", "S2"]
    assert second.receipt.source_ids == ["S2", "S3"]
    assert second.names == {"acme:b": "S2", "acme:c": "S3"}
    assert first.receipt.session_id == "s1"
    assert first.receipt.requested_at == "2030-01-02T03:04:05Z"
    assert first.receipt.completed_at > first.receipt.requested_at
    assert second.receipt.requested_at > first.receipt.completed_at
    assert first.receipt.query_key != second.receipt.query_key
    assert [h.id for h in second.result] == ["acme:b", "acme:c"]


def test_sessionless_requests_do_not_dedup_across_calls() -> None:
    policy, _, _ = make_policy(limit=1)
    first = ask(policy, "q1", session=None)
    again = ask(policy, "q1", session=None)
    assert (first.receipt.sequence, again.receipt.sequence) == (1, 1)
    assert again.receipt.session_id is None and again.receipt.source_ids == ["S1"]


# --- effects ------------------------------------------------------------------------------------------


def test_effects_add_extensions_and_one_failure_is_listed(caplog: pytest.LogCaptureFixture) -> None:
    def count_sources(given: EffectInput[Hit]) -> dict[str, Any]:
        return {"sources": len(given.result), "sequence": given.receipt.sequence}

    def broken(given: EffectInput[Hit]) -> dict[str, Any]:
        raise ValueError("effect bug")

    def not_json(given: EffectInput[Hit]) -> dict[str, Any]:
        return {"when": datetime.now(UTC)}

    kind = replace(HITS, effects={"count": count_sources, "broken": broken, "not_json": not_json})
    policy, store, clock = make_policy(kind=kind)
    with caplog.at_level(logging.ERROR):
        outcome = ask(policy, "q1", execute=returning("acme:a", "acme:b"))

    assert outcome.receipt.extensions == {"count": {"sources": 2, "sequence": 1}}
    assert outcome.receipt.failed_effects == ["broken", "not_json"]
    assert [h.id for h in outcome.result] == ["acme:a", "acme:b"]
    assert store.load(SessionScope("acme", "s1"), clock.now).successful == 1
    assert "broken" in caplog.text


# --- limits, scoping, read model ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "request_limit", "allowed"),
    [(None, None, 4), (3, None, 3), (3, 2, 2), (None, 9, 4), (2, 3, 2)],
)
def test_limit_is_the_lowest_of_config_claim_and_request(claim, request_limit, allowed) -> None:
    policy, _, _ = make_policy(limit=4)
    for n in range(allowed):
        ask(policy, f"q{n}", claim_limit=claim, request_limit=request_limit)
    with pytest.raises(SessionBudgetExhaustedError) as spent:
        ask(policy, "one more", claim_limit=claim, request_limit=request_limit)
    assert (spent.value.limit, spent.value.used) == (allowed, allowed)


@pytest.mark.parametrize("bad", [0, -1, True, "3"])
def test_non_positive_request_limit_is_invalid(bad: Any) -> None:
    policy, store, clock = make_policy()
    with pytest.raises(InvalidRequestError):
        ask(policy, "q1", request_limit=bad)
    assert store.load(SessionScope("acme", "s1"), clock.now) is None


def test_invalid_session_id_is_invalid_request() -> None:
    policy, _, _ = make_policy()
    with pytest.raises(InvalidRequestError):
        ask(policy, "q1", session="no spaces/or slashes")


def test_same_session_id_in_another_context_is_another_session() -> None:
    policy, _, _ = make_policy(limit=1)
    ask(policy, "q1", context="acme")
    other = ask(policy, "q1", context="globex")
    assert other.receipt.sequence == 1 and other.receipt.source_ids == ["S1"]


def test_describe_shows_count_limit_and_sources_to_the_owner_only() -> None:
    policy, _, _ = make_policy(limit=4)
    ask(policy, "q1", execute=returning("acme:a", "acme:b"))
    ask(policy, "q2", execute=returning("acme:b", "acme:c"))
    view = policy.describe(context_id="acme", session_id="s1", claim_limit=3)
    assert (view.count, view.limit) == (2, 3)
    assert [(s.name, s.id) for s in view.sources] == [("S1", "acme:a"), ("S2", "acme:b"), ("S3", "acme:c")]

    with pytest.raises(NotFoundError) as foreign:
        policy.describe(context_id="globex", session_id="s1")
    with pytest.raises(NotFoundError) as unknown:
        policy.describe(context_id="acme", session_id="s2")
    assert foreign.value.to_body() == unknown.value.to_body()


def test_sessions_expire_after_their_ttl() -> None:
    policy, _, clock = make_policy(limit=1)
    ask(policy, "q1")
    clock.now += timedelta(hours=2)
    with pytest.raises(NotFoundError):
        policy.describe(context_id="acme", session_id="s1")
    assert ask(policy, "q1").receipt.sequence == 1


def test_every_policy_error_shares_one_root() -> None:
    from retrieval_core.policy import errors

    raised = [
        errors.DuplicateQueryError("k", 1), errors.SessionBudgetExhaustedError(1, 1),
        errors.QueryForbiddenError(), errors.UnusableResultError(), errors.SessionNotFoundError(),
        errors.InvalidQueryError("bad"),
    ]  # fmt: skip
    assert all(isinstance(e, errors.PolicyError) for e in raised)
    assert [status_of(e) for e in raised] == [409, 429, 403, 500, 404, 422]
