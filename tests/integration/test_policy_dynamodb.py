"""The policy on the real Sessions table (moto server): atomic budgets and dedup under concurrency,
failure accounting and context scoping."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from retrieval_core import keys
from retrieval_core.adapters.dynamodb_sessions import DynamoSessionStore
from retrieval_core.config import Settings
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import BackendUnavailableError, NotFoundError
from retrieval_core.models.hits import Hit
from retrieval_core.models.item import Kind, Status
from retrieval_core.policy import (
    DuplicateQueryError,
    Outcome,
    PolicyConfig,
    RetrievalPolicy,
    SessionBudgetExhaustedError,
)
from retrieval_core.policy.policy import utc_now
from retrieval_core.policy.state import SessionScope


def hit(item_id: str) -> Hit:
    return Hit(
        id=item_id, kind=Kind.DOCUMENT, text=item_id, score=1.0, status=Status.ACTIVE,
        created_at="2030-01-01T00:00:00Z",
    )  # fmt: skip


def returning(*ids: str) -> Callable[[Mapping[str, Any]], list[Hit]]:
    return lambda query: [hit(i) for i in ids]


def make_policy(settings: Settings, limit: int = 10, now: Callable[[], datetime] = utc_now):
    store = DynamoSessionStore.from_settings(settings)
    config = PolicyConfig(limit=limit, ttl_seconds=settings.session_ttl_seconds)
    return RetrievalPolicy(store, config, now=now), store


def run_concurrently(calls: list[Callable[[], Outcome[Hit]]]) -> tuple[list[Outcome[Hit]], list[Exception]]:
    """Start every call at once (a barrier, not a sleep) and sort the results from the errors."""
    barrier = threading.Barrier(len(calls))

    def call(fn: Callable[[], Outcome[Hit]]) -> Outcome[Hit] | Exception:
        barrier.wait()
        try:
            return fn()
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        results = list(pool.map(call, calls))
    return [r for r in results if isinstance(r, Outcome)], [r for r in results if isinstance(r, Exception)]


def ask(policy: RetrievalPolicy[Hit], text: str, context: str = "acme", session: str = "s1", **kw: Any):
    execute = kw.pop("execute", returning(f"{context}:doc-{text}"))
    return policy.run(
        {"mode": "lexical", "text": text}, context_id=context, session_id=session, execute=execute, **kw
    )


def test_concurrent_distinct_queries_never_exceed_the_budget(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=10)
    receipts, errors = run_concurrently([lambda n=n: ask(policy, f"question {n}") for n in range(40)])

    assert len(receipts) == 10
    assert len(errors) == 30 and all(isinstance(e, SessionBudgetExhaustedError) for e in errors)
    assert sorted(o.receipt.sequence for o in receipts) == list(range(1, 11))
    assert sorted(name for o in receipts for name in o.receipt.source_ids) == sorted(
        f"S{n}" for n in range(1, 11)
    )
    state = store.load(SessionScope("acme", "s1"), datetime.now(UTC))
    assert (state.successful, state.used) == (10, 10)
    assert len(state.seen) == 40  # the 30 refused keys are remembered too
    assert policy.describe(context_id="acme", session_id="s1").count == 10


def test_concurrent_identical_queries_run_once(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=50)
    receipts, errors = run_concurrently([lambda: ask(policy, "the same question")] * 20)

    assert len(receipts) == 1 and receipts[0].receipt.sequence == 1
    assert len(errors) == 19
    assert all(isinstance(e, DuplicateQueryError) and e.original_sequence == 1 for e in errors)
    state = store.load(SessionScope("acme", "s1"), datetime.now(UTC))
    assert (state.successful, state.used, state.accepted) == (1, 1, 1)


def test_concurrent_completions_name_each_source_once(fresh_settings: Settings) -> None:
    policy, _ = make_policy(fresh_settings, limit=20)
    calls = [
        lambda n=n: ask(policy, f"q{n}", execute=returning("acme:shared", f"acme:own-{n}")) for n in range(10)
    ]
    receipts, errors = run_concurrently(calls)

    assert errors == [] and len(receipts) == 10
    assert len({o.names["acme:shared"] for o in receipts}) == 1
    view = policy.describe(context_id="acme", session_id="s1")
    assert [s.name for s in view.sources] == [f"S{n}" for n in range(1, 12)]
    assert len({s.id for s in view.sources}) == 11
    named = {s.id: s.name for s in view.sources}
    assert all(o.names == {i: named[i] for i in o.names} for o in receipts)


def test_failed_read_keeps_the_key_and_frees_the_slot(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=1)

    def boom(query: Mapping[str, Any]) -> list[Hit]:
        raise ConnectionError("search backend down")

    with pytest.raises(ConnectionError):
        ask(policy, "q1", execute=boom)
    with pytest.raises(DuplicateQueryError) as retry:
        ask(policy, "q1")
    assert retry.value.original_sequence == 1
    assert ask(policy, "q2").receipt.sequence == 2
    with pytest.raises(SessionBudgetExhaustedError):
        ask(policy, "q3")
    with pytest.raises(DuplicateQueryError) as refused_retry:
        ask(policy, "q3")
    assert refused_retry.value.original_sequence is None
    state = store.load(SessionScope("acme", "s1"), datetime.now(UTC))
    assert (state.successful, state.used, state.accepted) == (1, 1, 2)


def test_session_id_reused_in_another_context_sees_nothing(fresh_settings: Settings) -> None:
    policy, _ = make_policy(fresh_settings, limit=1)
    first = ask(policy, "q1", context="acme", session="shared-id")
    assert first.receipt.source_ids == ["S1"]

    with pytest.raises(NotFoundError) as foreign:
        policy.describe(context_id="globex", session_id="shared-id")
    with pytest.raises(NotFoundError) as unknown:
        policy.describe(context_id="globex", session_id="never-used")
    assert foreign.value.to_body() == unknown.value.to_body()

    other = ask(policy, "q1", context="globex", session="shared-id")  # no duplicate, fresh budget
    assert other.receipt.sequence == 1 and other.names == {"globex:doc-q1": "S1"}
    view = policy.describe(context_id="acme", session_id="shared-id")
    assert [(s.name, s.id) for s in view.sources] == [("S1", "acme:doc-q1")]


def test_expired_session_reads_as_absent_and_starts_over(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=1)
    ask(policy, "q1")
    later = datetime.now(UTC) + timedelta(seconds=fresh_settings.session_ttl_seconds + 60)
    future_policy, _ = make_policy(fresh_settings, limit=1, now=lambda: later)

    with pytest.raises(NotFoundError):
        future_policy.describe(context_id="acme", session_id="s1")
    restarted = future_policy.run(
        {"mode": "lexical", "text": "q1"}, context_id="acme", session_id="s1", execute=returning("acme:x")
    )
    assert restarted.receipt.sequence == 1 and restarted.receipt.source_ids == ["S1"]
    assert store.load(SessionScope("acme", "s1"), later).successful == 1


def test_state_lives_under_the_context_scoped_key_with_a_ttl(fresh_settings: Settings, dynamodb: Any) -> None:
    policy, _ = make_policy(fresh_settings)
    before = datetime.now(UTC).timestamp()
    ask(policy, "q1", context="acme", session="s-ttl")

    item = dynamodb.get_item(
        TableName=fresh_settings.sessions_table, Key={"pk": {"S": keys.partition("acme", "s-ttl")}}
    )["Item"]
    expires = int(item[keys.TTL_ATTRIBUTE]["N"])
    assert (
        before + fresh_settings.session_ttl_seconds - 5
        <= expires
        <= before + fresh_settings.session_ttl_seconds + 60
    )
    assert (item["successful"]["N"], item["used"]["N"]) == ("1", "1")
    assert "Item" not in dynamodb.get_item(
        TableName=fresh_settings.sessions_table, Key={"pk": {"S": keys.partition("globex", "s-ttl")}}
    )


def test_a_failing_table_is_a_leak_free_503(fresh_settings: Settings) -> None:
    settings = fresh_settings.model_copy(update={"sessions_table": "no-such-sessions-table"})
    policy, _ = make_policy(settings)
    with pytest.raises(BackendUnavailableError) as failed:
        ask(policy, "q1")
    assert status_of(failed.value) == 503
    assert "sessions" not in str(failed.value.to_body()).lower()
