"""Issue 51: the loader's DynamoDB rows go out as ``BatchWriteItem`` calls of 25, several in flight at
once; a key named twice keeps its last request (as writing in turn would), and what DynamoDB leaves
unprocessed is retried or named."""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Any

import pytest
from retrieval_core.adapters.dynamodb_writer import BATCH_LIMIT, WRITERS, DynamoDBBatchWriter
from retrieval_core.adapters.errors import UnprocessedWritesError
from retrieval_core.adapters.row_ref import RowRef


class RecordingDynamoDB:
    """``batch_write_item`` that keeps every batch; ``unprocessed`` keys are never taken. With
    ``meet`` set, the first two calls wait for each other: they pass only if they are in flight together."""

    def __init__(self, *, unprocessed: frozenset[str] = frozenset(), meet: bool = False) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self._unprocessed = unprocessed
        self._barrier = threading.Barrier(2, timeout=10) if meet else None
        self._lock = threading.Lock()

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        (requests,) = RequestItems.values()
        with self._lock:
            self.batches.append(requests)
            first_two = len(self.batches) <= 2
        if self._barrier is not None and first_two:
            self._barrier.wait()  # BrokenBarrierError after 10 s if the calls run one after another
        left = [r for r in requests if r["PutRequest"]["Item"]["pk"]["S"] in self._unprocessed]
        return {"UnprocessedItems": {"t": left} if left else {}}


def rows(count: int, value: str = "v") -> list[tuple[RowRef, dict[str, Any]]]:
    return [(RowRef("t", f"p{n}", "card"), {"value": value}) for n in range(count)]


def test_batches_are_in_flight_together_and_each_key_is_written_once() -> None:
    client = RecordingDynamoDB(meet=True)
    DynamoDBBatchWriter(client).put(rows(3 * BATCH_LIMIT + 1))
    assert sorted(len(batch) for batch in client.batches) == [1, BATCH_LIMIT, BATCH_LIMIT, BATCH_LIMIT]
    written = [r["PutRequest"]["Item"]["pk"]["S"] for batch in client.batches for r in batch]
    assert sorted(written) == sorted(f"p{n}" for n in range(3 * BATCH_LIMIT + 1))


def test_a_key_named_twice_keeps_its_last_value() -> None:
    client = RecordingDynamoDB()
    DynamoDBBatchWriter(client).put([*rows(30, "old"), *rows(2, "new")])
    items = {r["PutRequest"]["Item"]["pk"]["S"]: r["PutRequest"]["Item"] for b in client.batches for r in b}
    assert len(items) == 30 and sum(len(batch) for batch in client.batches) == 30
    assert items["p0"]["value"] == {"S": "new"} and items["p29"]["value"] == {"S": "old"}


def test_what_is_never_processed_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("time.sleep", lambda seconds: None)  # the backoff between rounds, not a timing
    client = RecordingDynamoDB(unprocessed=frozenset({"p7", "p40"}))
    with pytest.raises(UnprocessedWritesError) as raised:
        DynamoDBBatchWriter(client).put(rows(60))
    assert sorted(ref.pk for ref in raised.value.refs) == ["p40", "p7"]


@pytest.mark.parametrize(
    "value",
    [
        "text",
        "",
        ["a", "b"],
        [],
        ["a", 1],
        Decimal("0.75"),
        7,
        True,
        [{"start": 1, "end": 9}],
        {"kind": "mention", "n": Decimal("3")},
        {"x", "y"},
        b"bytes",
    ],
    ids=repr,
)
def test_a_rows_attributes_are_written_as_boto3_would_write_them(value: Any) -> None:
    from boto3.dynamodb.types import TypeSerializer

    client = RecordingDynamoDB()
    DynamoDBBatchWriter(client).put([(RowRef("t", "p", "card"), {"value": value})])
    ((request,),) = client.batches
    assert request["PutRequest"]["Item"]["value"] == TypeSerializer().serialize(value)


class KeepingDynamoDB:
    """``batch_write_item`` that keeps every request and processes them all."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        with self._lock:
            self.requests += [r for requests in RequestItems.values() for r in requests]
        return {"UnprocessedItems": {}}


def test_stale_rows_and_new_rows_go_in_one_round_and_a_key_in_both_keeps_its_put() -> None:
    client = KeepingDynamoDB()
    stale = [RowRef("t", f"s{n}", "edge") for n in range(BATCH_LIMIT)] + [RowRef("t", "p0", "card")]
    DynamoDBBatchWriter(client).apply(puts=rows(BATCH_LIMIT), deletes=stale)
    deleted = {r["DeleteRequest"]["Key"]["pk"]["S"] for r in client.requests if "DeleteRequest" in r}
    put = {r["PutRequest"]["Item"]["pk"]["S"] for r in client.requests if "PutRequest" in r}
    assert deleted == {f"s{n}" for n in range(BATCH_LIMIT)}
    assert put == {f"p{n}" for n in range(BATCH_LIMIT)}
    assert len(client.requests) == 2 * BATCH_LIMIT


class ThreadNotingDynamoDB(KeepingDynamoDB):
    """Also keeps the thread each batch was sent from (the objects, so a thread ended and another started
    with its recycled id still count as two)."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[threading.Thread] = set()

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        self.threads.add(threading.current_thread())
        return super().batch_write_item(RequestItems)


def test_writes_share_threads_kept_for_the_process_not_a_pool_per_write() -> None:
    client = ThreadNotingDynamoDB()
    for _ in range(6):
        DynamoDBBatchWriter(client).put(rows(WRITERS * BATCH_LIMIT))
    assert len(client.requests) == 6 * WRITERS * BATCH_LIMIT
    assert 1 <= len(client.threads) <= WRITERS
    assert all(thread.is_alive() for thread in client.threads)


class FailingDynamoDB(KeepingDynamoDB):
    """Fails the first batch at once; the others take a while, so they end after the failure."""

    def __init__(self) -> None:
        super().__init__()
        self._first = threading.Event()

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        if not self._first.is_set():
            self._first.set()
            raise ConnectionError("the first batch")
        threading.Event().wait(0.05)  # outlasts the failing call, not a timing assertion
        return super().batch_write_item(RequestItems)


def test_a_failed_batch_is_raised_only_once_every_other_batch_has_ended() -> None:
    client = FailingDynamoDB()
    with pytest.raises(ConnectionError):
        DynamoDBBatchWriter(client).put(rows(3 * BATCH_LIMIT))
    assert len(client.requests) == 2 * BATCH_LIMIT  # nothing still writes behind the caller
