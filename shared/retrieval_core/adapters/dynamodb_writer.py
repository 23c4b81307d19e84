"""Batched DynamoDB writes for the loader: ``BatchWriteItem`` in chunks of 25, a few in flight at once,
retrying unprocessed items."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from ..aws import aws_failures
from .errors import UnprocessedReadsError, UnprocessedWritesError
from .row_ref import RowRef

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

BATCH_LIMIT = 25
MAX_ROUNDS = 8
WRITERS = 4
"""Batches in flight at once. One call's writes are independent puts (or deletes) of distinct keys, so
their order does not matter; a chunk's rows then take a quarter of the round trips' time. Four stays
well inside botocore's pool of ten connections and a small table's write capacity."""


def in_parallel(purpose: str, count: int, call: Callable[[T], R], arguments: Sequence[T]) -> list[R]:
    """``call`` of each argument, up to ``count`` at once, on ``purpose``'s threads; returns (or raises the
    first failure) once every call has ended, so nothing it started writes on behind its caller (a kill
    point, a ledger's next step)."""
    from concurrent.futures import wait

    pool = _workers(purpose, count)
    calls = [pool.submit(call, argument) for argument in arguments]
    wait(calls)
    return [done.result() for done in calls]


@cache
def _workers(purpose: str, count: int) -> ThreadPoolExecutor:
    """Made on first use and kept for the process's life (a container's, a sync's): a pool made per call
    started and joined its threads on every write, about a hundred of them in a 300-file sync. The calls
    never wait on one another, so callers on several threads (a sync's commit thread beside its main
    thread) share them safely, each waiting for a free thread past ``count`` as its own pool made it.
    Imported from its own module: a test's stand-in for ``concurrent.futures.ThreadPoolExecutor`` (a
    sync's commit thread run in turn) is never kept here for the rest of the process."""
    from concurrent.futures.thread import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=count, thread_name_prefix=purpose)


class DynamoDBBatchWriter:
    def __init__(self, client: Any) -> None:
        from boto3.dynamodb.types import TypeSerializer

        self._client = client
        self._serializer = TypeSerializer()

    def put(self, rows: Iterable[tuple[RowRef, Mapping[str, Any]]]) -> None:
        """Write whole rows (attributes exclude the key, which ``RowRef`` carries)."""
        self._write([self._put_request(ref, attrs) for ref, attrs in rows])

    def apply(self, *, puts: Iterable[tuple[RowRef, Mapping[str, Any]]], deletes: Iterable[RowRef]) -> None:
        """Delete ``deletes`` and write ``puts`` in one round of batches (a key in both keeps the put)."""
        requests = [_delete_request(ref) for ref in deletes]
        self._write(requests + [self._put_request(ref, attrs) for ref, attrs in puts])

    def _put_request(self, ref: RowRef, attrs: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return ref.table, {"PutRequest": {"Item": {**ref.key(), **self.attributes(attrs)}}}

    def attributes(self, attrs: Mapping[str, Any]) -> dict[str, Any]:
        """``attrs`` as the row's stored attribute values (a None is no attribute), the form a read of
        the row returns them in."""
        # A string (every value of an edge row, two rows in three of a sync's) without a call per value.
        return {
            name: {"S": value} if type(value) is str else self._attribute(value)
            for name, value in attrs.items()
            if value is not None
        }

    def _attribute(self, value: Any) -> dict[str, Any]:
        """``value`` as DynamoDB's attribute value: strings and lists of strings, most of what a row
        holds, directly; the rest by boto3's serializer, whose type checks (an abstract-base-class test
        for a set on every list) were a quarter of a million-item load's client time."""
        if type(value) is str:
            return {"S": value}
        if type(value) is list and all(type(element) is str for element in value):
            return {"L": [{"S": element} for element in value]}
        return dict(self._serializer.serialize(value))

    def delete(self, refs: Iterable[RowRef]) -> None:
        self._write([_delete_request(ref) for ref in refs])

    def _write(self, requests: list[tuple[str, dict[str, Any]]]) -> None:
        # A key named twice keeps its last request, as writing them in turn would: batches in flight
        # together must not race on a key (and one batch may not name a key twice).
        latest = list({(table, _key_of(request)): (table, request) for table, request in requests}.values())
        batches = [latest[start : start + BATCH_LIMIT] for start in range(0, len(latest), BATCH_LIMIT)]
        if len(batches) > 1:
            sent = in_parallel("dynamodb-write", WRITERS, self._write_batch, batches)
            failed = [unsent for unsents in sent for unsent in unsents]
        else:
            failed = [unsent for batch in batches for unsent in self._write_batch(batch)]
        if failed:
            raise UnprocessedWritesError([_ref_of(table, request) for table, request in failed])

    def _write_batch(self, batch: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        """Retries unprocessed items with exponential backoff; returns what never went through."""
        import time

        pending = batch
        for attempt in range(MAX_ROUNDS):
            by_table: dict[str, list[dict[str, Any]]] = {}
            for table, request in pending:
                by_table.setdefault(table, []).append(request)
            response = _batch_call(self._client.batch_write_item, RequestItems=by_table)
            unprocessed = response.get("UnprocessedItems") or {}
            pending = [(table, request) for table, requests in unprocessed.items() for request in requests]
            if not pending:
                return []
            time.sleep(min(0.05 * 2**attempt, 2.0))  # backoff for throttled capacity, not for timing
        return pending


def _delete_request(ref: RowRef) -> tuple[str, dict[str, Any]]:
    return ref.table, {"DeleteRequest": {"Key": ref.key()}}


def _key_of(request: dict[str, Any]) -> tuple[str, str | None]:
    key = request.get("PutRequest", {}).get("Item") or request["DeleteRequest"]["Key"]
    return key["pk"]["S"], key.get("sk", {}).get("S")


def _ref_of(table: str, request: dict[str, Any]) -> RowRef:
    return RowRef(table, *_key_of(request))


def read_rows(client: Any, refs: list[RowRef]) -> dict[RowRef, dict[str, Any]]:
    """Each existing row among ``refs``, whole, as stored attribute values (keys included), via
    ``BatchGetItem`` (100 keys a call)."""
    found: dict[RowRef, dict[str, Any]] = {}
    by_key = {(ref.table, ref.pk, ref.sk): ref for ref in refs}
    for start in range(0, len(refs), 100):
        pending: dict[str, Any] = {}
        for ref in refs[start : start + 100]:
            pending.setdefault(ref.table, {"Keys": []})["Keys"].append(ref.key())
        for _ in range(MAX_ROUNDS):
            response = _batch_call(client.batch_get_item, RequestItems=pending)
            for table, rows in response.get("Responses", {}).items():
                for row in rows:
                    found[by_key[(table, row["pk"]["S"], row.get("sk", {}).get("S"))]] = row
            pending = response.get("UnprocessedKeys") or {}
            if not pending:
                break
        else:
            raise UnprocessedReadsError(sum(len(request["Keys"]) for request in pending.values()))
    return found


def _batch_call(operation: Any, **request: Any) -> Any:
    """One batch call; botocore failures (after its own retries) become a 503-class error."""
    with aws_failures("dynamodb", operation.__name__):
        return operation(**request)


def partition_rows(client: Any, table: str, pk: str) -> list[tuple[RowRef, dict[str, Any]]]:
    """Every row of one partition (one ``Query``, paged), each with its other attributes, deserialized."""
    from boto3.dynamodb.types import TypeDeserializer

    deserializer = TypeDeserializer()
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": pk}},
    }
    rows: list[tuple[RowRef, dict[str, Any]]] = []
    while True:
        page = _batch_call(client.query, **request)
        for row in page.get("Items", []):
            attrs = {k: deserializer.deserialize(v) for k, v in row.items() if k not in ("pk", "sk")}
            rows.append((RowRef(table, row["pk"]["S"], row.get("sk", {}).get("S")), attrs))
        if "LastEvaluatedKey" not in page:
            return rows
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
