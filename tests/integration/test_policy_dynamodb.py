"""The policy on the real Sessions table (moto server): atomic budgets and dedup under concurrency,
failure accounting (a failed query does not count), and scoping by context and principal."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError
from retrieval_core.adapters import dynamodb_keys as keys
from retrieval_core.adapters.dynamodb_sessions import DynamoSessionStore, session_partition
from retrieval_core.config import Settings
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import BackendUnavailableError, NotFoundError
from retrieval_core.models.hits import Hit
from retrieval_core.models.vocabulary import Kind, Status
from retrieval_core.policy import (
    DuplicateQueryError,
    PolicyConfig,
    RetrievalPolicy,
    SessionBudgetExhaustedError,
)
from retrieval_core.policy.policy import utc_now
from retrieval_core.policy.state import SessionScope

from tests.policy_runs import Ran, run_policy


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


def run_concurrently(calls: list[Callable[[], Ran]]) -> tuple[list[Ran], list[Exception]]:
    """Start every call at once (a barrier, not a sleep) and sort the results from the errors."""
    barrier = threading.Barrier(len(calls))

    def call(fn: Callable[[], Ran]) -> Ran | Exception:
        barrier.wait()
        try:
            return fn()
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        results = list(pool.map(call, calls))
    return [r for r in results if isinstance(r, Ran)], [r for r in results if isinstance(r, Exception)]


def ask(policy: RetrievalPolicy, text: str, context: str = "acme", session: str = "s1", **kw: Any):
    execute = kw.pop("execute", returning(f"{context}:doc-{text}"))
    return run_policy(
        policy,
        {"mode": "lexical", "text": text},
        context_id=context,
        session_id=session,
        execute=execute,
        **kw,
    )


def test_concurrent_distinct_queries_accept_exactly_the_budget(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=10)
    receipts, errors = run_concurrently([lambda n=n: ask(policy, f"question {n}") for n in range(40)])

    assert len(receipts) == 10
    assert len(errors) == 30 and all(isinstance(e, SessionBudgetExhaustedError) for e in errors)
    assert sorted(o.receipt.sequence for o in receipts) == list(range(1, 11))
    assert sorted(name for o in receipts for name in o.receipt.source_ids) == sorted(
        f"S{n}" for n in range(1, 11)
    )
    assert store.load(SessionScope("acme", "s1"), datetime.now(UTC)).successful == 10
    assert policy.describe(context_id="acme", session_id="s1").count == 10
    refused = {o.receipt.query_key for o in receipts}
    retried = next(f"question {n}" for n in range(40) if ask_key(f"question {n}") not in refused)
    with pytest.raises(SessionBudgetExhaustedError):  # a refusal left no trace: still 429, not 409
        ask(policy, retried)


def ask_key(text: str) -> str:
    from retrieval_core.policy.query import canonical_key, prepare_query

    return canonical_key(prepare_query({"mode": "lexical", "text": text}))


def test_concurrent_identical_queries_accept_exactly_one(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=50)
    receipts, errors = run_concurrently([lambda: ask(policy, "the same question")] * 20)

    assert len(receipts) == 1 and receipts[0].receipt.sequence == 1
    assert len(errors) == 19 and all(isinstance(e, DuplicateQueryError) for e in errors)
    assert {e.original_sequence for e in errors} == {1}  # each lost the race for the log to the first
    assert store.load(SessionScope("acme", "s1"), datetime.now(UTC)).successful == 1
    with pytest.raises(DuplicateQueryError) as later:
        ask(policy, "the same question")
    assert later.value.original_sequence == 1


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


def test_names_stay_stable_across_containers(fresh_settings: Settings) -> None:
    """Two stores are two Lambda containers, each with its own cached log."""
    first, _ = make_policy(fresh_settings)
    second, _ = make_policy(fresh_settings)
    assert ask(first, "q1", execute=returning("acme:a", "acme:b")).names == {"acme:a": "S1", "acme:b": "S2"}
    assert ask(second, "q2", execute=returning("acme:b", "acme:c")).names == {"acme:b": "S2", "acme:c": "S3"}
    third = ask(first, "q3", execute=returning("acme:c", "acme:d", "acme:a"))
    assert third.receipt.sequence == 3
    assert third.names == {"acme:c": "S3", "acme:d": "S4", "acme:a": "S1"}


def test_a_failed_query_does_not_count_and_its_retry_succeeds(fresh_settings: Settings) -> None:
    policy, store = make_policy(fresh_settings, limit=2)

    def boom(query: Mapping[str, Any]) -> list[Hit]:
        raise ConnectionError("search backend down")

    assert ask(policy, "q0").receipt.sequence == 1
    with pytest.raises(ConnectionError):
        ask(policy, "q1", execute=boom)
    assert policy.describe(context_id="acme", session_id="s1").count == 1
    retry = ask(policy, "q1")
    assert (retry.receipt.sequence, retry.receipt.source_ids) == (2, ["S2"])
    assert store.load(SessionScope("acme", "s1"), datetime.now(UTC)).successful == 2
    with pytest.raises(SessionBudgetExhaustedError):
        ask(policy, "q2")


def failing_log_writes(client: Any, failures: int) -> None:
    """Make the next ``failures`` log appends fail the way DynamoDB refuses an oversized item."""
    remaining = [failures]

    def refuse(params: dict[str, Any], **_: Any) -> None:
        if remaining[0] and params["Item"]["sk"]["S"].startswith("L#"):
            remaining[0] -= 1
            error = {"Error": {"Code": "ValidationException", "Message": "Item size has exceeded the limit"}}
            raise ClientError(error, "PutItem")

    client.meta.events.register("provide-client-params.dynamodb.PutItem", refuse)


def test_a_failed_session_write_releases_the_claim(fresh_settings: Settings, dynamodb: Any) -> None:
    failing_log_writes(dynamodb, failures=1)
    store = DynamoSessionStore(dynamodb, fresh_settings.sessions_table, timedelta(hours=1))
    policy = RetrievalPolicy(store, PolicyConfig(limit=1))
    with pytest.raises(BackendUnavailableError):
        ask(policy, "q1")
    with pytest.raises(NotFoundError):
        policy.describe(context_id="acme", session_id="s1")

    retry = ask(policy, "q1")  # neither a duplicate nor over the budget of one
    assert (retry.receipt.sequence, retry.receipt.source_ids) == (1, ["S1"])


def test_another_principals_session_is_unknown(fresh_settings: Settings) -> None:
    policy, _ = make_policy(fresh_settings, limit=1)
    mine = ask(policy, "q1", session="run-7", principal="alice")
    assert mine.receipt.sequence == 1

    with pytest.raises(NotFoundError) as foreign:
        policy.describe(context_id="acme", session_id="run-7", principal="bob")
    with pytest.raises(NotFoundError) as unknown:
        policy.describe(context_id="acme", session_id="never-used", principal="bob")
    assert foreign.value.to_body() == unknown.value.to_body()

    bobs = ask(policy, "q1", session="run-7", principal="bob")  # no duplicate, its own fresh budget
    assert bobs.receipt.sequence == 1
    with pytest.raises(NotFoundError):
        policy.describe(context_id="acme", session_id="run-7")  # nor is it the principal-less session
    view = policy.describe(context_id="acme", session_id="run-7", principal="alice")
    assert (view.count, [s.id for s in view.sources]) == (1, ["acme:doc-q1"])


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
    restarted = run_policy(
        future_policy,
        {"mode": "lexical", "text": "q1"},
        context_id="acme",
        session_id="s1",
        execute=returning("acme:x"),
    )
    assert restarted.receipt.sequence == 1 and restarted.receipt.source_ids == ["S1"]
    assert store.load(SessionScope("acme", "s1"), later).successful == 1


def test_state_lives_in_the_sessions_partition_with_one_deadline(
    fresh_settings: Settings, dynamodb: Any
) -> None:
    policy, _ = make_policy(fresh_settings)
    before = datetime.now(UTC).timestamp()
    ask(policy, "q1", context="acme", session="s-ttl", execute=returning("acme:a", "acme:b"))
    ask(policy, "q2", context="acme", session="s-ttl", execute=returning("acme:b"))

    pk = session_partition(SessionScope("acme", "s-ttl"))
    items = dynamodb.query(
        TableName=fresh_settings.sessions_table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": pk}},
    )["Items"]
    assert sorted(item["sk"]["S"][:2] for item in items) == ["L#", "L#"]  # nothing but the log
    (expires,) = {int(item[keys.TTL_ATTRIBUTE]["N"]) for item in items}
    ttl = fresh_settings.session_ttl_seconds
    assert before + ttl - 5 <= expires <= before + ttl + 60
    log = [item for item in items if item["sk"]["S"].startswith("L#")]
    assert [[v["S"] for v in entry["sources"]["L"]] for entry in log] == [["acme:a", "acme:b"], []]
    foreign = session_partition(SessionScope("globex", "s-ttl"))
    assert not dynamodb.query(
        TableName=fresh_settings.sessions_table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": foreign}},
    )["Items"]


def test_a_failing_table_is_a_leak_free_503(fresh_settings: Settings) -> None:
    settings = fresh_settings.model_copy(update={"sessions_table": "no-such-sessions-table"})
    policy, _ = make_policy(settings)
    with pytest.raises(BackendUnavailableError) as failed:
        ask(policy, "q1")
    assert status_of(failed.value) == 503
    assert "sessions" not in str(failed.value.to_body()).lower()
