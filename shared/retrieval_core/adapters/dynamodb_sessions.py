"""Retrieval-session state in the Sessions table: small items in one partition per session, so what a
request costs does not grow with the session (design and costs: docs/STORAGE.md).

    pk = "{ctx}#{session_id}", or "{ctx}#@{principal digest}#{session_id}" when the authorizer named
         the caller (session ids cannot contain "#" or "@", so the two forms never meet)
    sk = "L#{sequence:08d}"  one immutable log entry per answered query: its query key, the position of its
                             first new source, the new sources' ids (positions first, first + 1, ...), and
                             the digest of its idempotency key when it had one
    sk = "K#{key digest}"    an idempotency key's lock: the query key it belongs to, the holder's token
                             and deadline
    sk = "A#{key digest}"    an idempotent request's kept answer (compressed) and its sequence
    expires_at               on every item: the session's deadline, set by its first log entry

Two round trips per request. ``admit`` reads the log's new tail (and, with an idempotency key, puts the
key's lock in the same round); ``complete`` puts log entry ``n`` (and the kept answer beside it). The log
put is the only atomic step that needs to be: entry ``n`` exists at most once and its writer has seen
entries 1..n-1, so sequence numbers, source positions, the budget (``n <= limit``) and "this query is new
to the session" are all decided by one conditional write. A lost race returns the entry that won it
(``ALL_OLD``), which continues the log, and the put is tried again at ``n + 1``.

The log only grows at its end and its entries never change, so each container keeps the logs it has read
and asks DynamoDB only for entries past the last one it knows.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from .. import backend_calls
from ..aws import aws_failures
from ..config import Settings
from ..errors import BackendUnavailableError
from ..policy.state import (
    Admission,
    Admitted,
    AlreadySeen,
    Attempt,
    Completed,
    Completion,
    InProgress,
    Keep,
    KeyReused,
    OverBudget,
    Replayed,
    SessionScope,
    SessionState,
    source_names,
)
from . import dynamodb_keys as keys
from .dynamodb_client import dynamodb_client

if TYPE_CHECKING:
    from botocore.client import BaseClient as DynamoDBClient

logger = logging.getLogger(__name__)
R = TypeVar("R")

LOG = "L#"
LOCK = "K#"
ANSWER = "A#"
LOG_DIGITS = 8
LAST_LOG_KEY = LOG + "9" * LOG_DIGITS
LOCK_TIMEOUT = timedelta(minutes=15)
"""How long a lock taken outside an invocation (no deadline: the CLI) holds: Lambda's longest timeout."""
LOCK_MARGIN_SECONDS = 2
"""Clock skew allowed between containers when a lock's holder's deadline is compared with their clocks."""
COMPLETE_ATTEMPTS = 32
"""Optimistic retries when appending to the log; each lost race means another query was answered."""
CACHED_SESSIONS = 1024
MAX_KEPT_ANSWER_BYTES = 300_000
"""A kept answer larger than this after compression is not kept (a DynamoDB item holds at most 400 KB);
its request is then refused as an answered duplicate when sent again."""

Item = dict[str, dict[str, Any]]


def session_partition(scope: SessionScope) -> str:
    """The partition of a session: its context, then its principal's digest (if any), then its id."""
    if scope.principal is None:
        return keys.partition(scope.context_id, scope.session_id)
    digest = hashlib.sha256(scope.principal.encode()).hexdigest()[:32]
    return keys.partition(scope.context_id, f"@{digest}{keys.KEY_SEPARATOR}{scope.session_id}")


def key_digest(idempotency_key: str) -> str:
    """What the table holds of an idempotency key: a digest (keys may be long; they are not data)."""
    return hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]


@dataclass(slots=True)
class _Log:
    """What a container knows of one session's log: a prefix of it, which never changes once written."""

    deadline: int | None = None
    """Epoch seconds after which the session is gone (the first entry's ``expires_at``)."""
    keys: dict[str, int] = field(default_factory=dict)
    """Query key -> sequence."""
    positions: dict[str, int] = field(default_factory=dict)
    """Item id -> position, in position order."""
    idempotent: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Idempotency key digest -> (sequence, query key)."""

    @property
    def answered(self) -> int:
        return len(self.keys)

    def extend(self, entries: Sequence[Item], now: int) -> None:
        """Append the entries that continue this prefix; stop at a gap or at an entry of an expired
        earlier life of the session (its ``expires_at`` differs from the first entry's)."""
        for entry in entries:
            sequence = int(entry["sk"]["S"].removeprefix(LOG))
            expires = int(entry[keys.TTL_ATTRIBUTE]["N"])
            if sequence <= self.answered:
                continue
            if sequence != self.answered + 1 or expires <= now or (self.deadline not in (None, expires)):
                return
            self.deadline = expires
            self.keys[entry["query"]["S"]] = sequence
            if "idem" in entry:
                self.idempotent[entry["idem"]["S"]] = (sequence, entry["query"]["S"])
            first = int(entry["first"]["N"])
            for offset, value in enumerate(entry["sources"]["L"]):
                self.positions.setdefault(value["S"], first + offset)


class DynamoSessionStore:
    """``SessionStore`` backed by the Sessions table."""

    def __init__(self, client: DynamoDBClient, table: str, ttl: timedelta) -> None:
        self._client = client
        self._table = table
        self._ttl = ttl
        self._logs: OrderedDict[str, _Log] = OrderedDict()
        self._lock = threading.Lock()
        # Two calls of one round trip run side by side (a lock and a log read; a log entry and an answer).
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sessions")

    @classmethod
    def from_settings(cls, settings: Settings) -> DynamoSessionStore:
        return cls(
            dynamodb_client(settings),
            settings.sessions_table,
            timedelta(seconds=settings.session_ttl_seconds),
        )

    def forget(self) -> None:
        """Drop every cached log, as a new container would start (the bench measures that case)."""
        with self._lock:
            self._logs.clear()

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        log = self._read_log(scope, now, consistent=True)
        if log.answered == 0:
            return None
        return SessionState(log.answered, tuple(log.positions))

    # --- admit: one round trip ---------------------------------------------------------------------

    def admit(self, attempt: Attempt, limit: int, now: datetime) -> Admission:
        digest = None if attempt.idempotency_key is None else key_digest(attempt.idempotency_key)
        known = self._cached(attempt.scope, now)
        if digest is not None and digest in known.idempotent:
            # A replay this container can validate from its cache: one small read.
            return self._replay(attempt, digest, *known.idempotent[digest])
        if digest is None:
            # What the container already knows refuses without a call: its log is a prefix of the log.
            with self._lock:
                refusal = self._admission(known, attempt.key, limit)
            if refusal is not None:
                return refusal
            log = self._read_log(attempt.scope, now, consistent=False)
            return self._admission(log, attempt.key, limit) or Admitted()
        locked, log = self._both(
            lambda: self._take_lock(attempt, digest, now),
            lambda: self._read_log(attempt.scope, now, consistent=True),
        )
        if digest in log.idempotent:  # answered: replayed (or refused) whether or not the lock was taken
            return self._replay(attempt, digest, *log.idempotent[digest])
        if locked is not None:
            return KeyReused() if locked != attempt.key else InProgress()
        refusal = self._admission(log, attempt.key, limit)
        if refusal is not None:
            self.release(attempt, now)
            return refusal
        return Admitted()

    @staticmethod
    def _admission(log: _Log, key: str, limit: int) -> AlreadySeen | OverBudget | None:
        if key in log.keys:
            return AlreadySeen(log.keys[key])
        return OverBudget(log.answered) if log.answered >= limit else None

    def _take_lock(self, attempt: Attempt, digest: str, now: datetime) -> str | None:
        """Put the key's lock; None when taken, else the query key of the request that holds the key.

        A lock holds until its holder's deadline: past it the holder can write nothing more (no DynamoDB
        call starts that could end after the deadline), so a retry whose first attempt ran out of time,
        or could not release the lock, takes it again at once. Only the same request may take a lock
        again, so a key never changes its request."""
        pk, clock = session_partition(attempt.scope), _epoch(now)
        left = backend_calls.remaining()
        held = LOCK_TIMEOUT.total_seconds() if left is None else math.ceil(left) + LOCK_MARGIN_SECONDS
        ok, response = self._call(
            "put_item",
            TableName=self._table,
            Item={
                "pk": {"S": pk},
                "sk": {"S": LOCK + digest},
                "query": {"S": attempt.key},
                "token": {"S": attempt.token},
                "held_until": {"N": str(clock + int(held))},
                keys.TTL_ATTRIBUTE: {"N": str(self._deadline(pk, now))},
            },
            ConditionExpression="attribute_not_exists(sk) OR #expires <= :now"
            " OR (held_until < :now AND #query = :query)",
            ExpressionAttributeNames={"#expires": keys.TTL_ATTRIBUTE, "#query": "query"},
            ExpressionAttributeValues={
                ":now": {"N": str(clock)},
                ":query": {"S": attempt.key},
            },
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        if ok:
            return None
        holder: str = (response.get("Item") or {}).get("query", {}).get("S", "")
        return holder

    def _replay(self, attempt: Attempt, digest: str, sequence: int, query: str) -> Admission:
        """The key's request was answered as ``sequence``: its kept answer, if this is that request."""
        if query != attempt.key:
            return KeyReused()
        _, response = self._call(
            "get_item",
            TableName=self._table,
            Key={"pk": {"S": session_partition(attempt.scope)}, "sk": {"S": ANSWER + digest}},
            ConsistentRead=True,
        )
        kept = response.get("Item")
        if kept is None or "answer" not in kept:
            return Replayed(sequence, None)
        if int(kept["sequence"]["N"]) != sequence:
            # Written for an earlier attempt at the log that lost its race; the rewrite is on its way.
            return InProgress()
        return Replayed(sequence, zlib.decompress(kept["answer"]["B"]))

    # --- complete: one round trip (more only when another query won the race for the next entry) ----

    def complete(
        self, attempt: Attempt, item_ids: Sequence[str], limit: int, now: datetime, keep: Keep | None
    ) -> Completion:
        pk, clock = session_partition(attempt.scope), _epoch(now)
        digest = None if attempt.idempotency_key is None else key_digest(attempt.idempotency_key)
        wanted = list(dict.fromkeys(item_ids))
        log = self._cached(attempt.scope, now)  # as admit read it: a lost race brings it up to date
        for _ in range(COMPLETE_ATTEMPTS):
            with self._lock:
                refusal = self._admission(log, attempt.key, limit)
                sequence, known = log.answered + 1, dict(log.positions)
                deadline_at = log.deadline or _epoch(now + self._ttl)
            if refusal is not None:
                self.release(attempt, now)
                return refusal
            new = [item_id for item_id in wanted if item_id not in known]
            first = len(known) + 1
            known.update({item_id: first + n for n, item_id in enumerate(new)})
            completed = Completed(sequence, source_names(known, wanted))
            entry: Item = {
                "pk": {"S": pk},
                "sk": {"S": f"{LOG}{sequence:0{LOG_DIGITS}d}"},
                "query": {"S": attempt.key},
                "first": {"N": str(first)},
                "sources": {"L": [{"S": item_id} for item_id in new]},
                keys.TTL_ATTRIBUTE: {"N": str(deadline_at)},
            }
            append = self._appender(entry, clock)
            if digest is None:
                ok, winner = append()
            else:
                entry["idem"] = {"S": digest}
                answer = keep(completed) if keep is not None else None
                keeper = partial(self._keep, pk, digest, sequence, answer, deadline_at)
                (ok, winner), _ = self._both(append, keeper)
            with self._lock:
                log.extend([entry] if ok else [winner], clock)
            if ok:
                return completed
            if log.answered < sequence:  # the winner does not continue what this container knows
                log = self._read_log(attempt.scope, now, consistent=True)
        logger.error("could not append to a session's log after %d attempts", COMPLETE_ATTEMPTS)
        raise BackendUnavailableError()

    def _appender(self, entry: Item, clock: int) -> Callable[[], tuple[bool, Item]]:
        def append() -> tuple[bool, Item]:
            ok, response = self._call(
                "put_item",
                TableName=self._table,
                Item=entry,
                ConditionExpression="attribute_not_exists(sk) OR #expires <= :now",
                ExpressionAttributeNames={"#expires": keys.TTL_ATTRIBUTE},
                ExpressionAttributeValues={":now": {"N": str(clock)}},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            return ok, dict(response.get("Item") or {})

        return append

    def _keep(self, pk: str, digest: str, sequence: int, answer: bytes | None, deadline_at: int) -> None:
        """Keep an idempotent request's answer beside its log entry. The answer counts once its entry is
        written, so a failure here is logged, not raised: a replay then finds nothing kept."""
        item: Item = {
            "pk": {"S": pk},
            "sk": {"S": ANSWER + digest},
            "sequence": {"N": str(sequence)},
            keys.TTL_ATTRIBUTE: {"N": str(deadline_at)},
        }
        compressed = None if answer is None else zlib.compress(answer, 6)
        if compressed is not None and len(compressed) <= MAX_KEPT_ANSWER_BYTES:
            item["answer"] = {"B": compressed}
        elif compressed is not None:
            logger.warning(
                "an idempotent answer of %d compressed bytes was too large to keep", len(compressed)
            )
        try:
            self._call("put_item", TableName=self._table, Item=item)
        except BackendUnavailableError:
            logger.warning("an idempotent request's answer was not kept")

    def release(self, attempt: Attempt, now: datetime) -> None:
        """Delete the idempotency key's lock if this request holds it (requests without a key hold none)."""
        if attempt.idempotency_key is None:
            return
        self._call(
            "delete_item",
            TableName=self._table,
            Key={
                "pk": {"S": session_partition(attempt.scope)},
                "sk": {"S": LOCK + key_digest(attempt.idempotency_key)},
            },
            ConditionExpression="#token = :token",
            ExpressionAttributeNames={"#token": "token"},
            ExpressionAttributeValues={":token": {"S": attempt.token}},
        )

    # --- the cached log ----------------------------------------------------------------------------

    def _deadline(self, pk: str, now: datetime) -> int:
        with self._lock:
            log = self._logs.get(pk)
            deadline_at = log.deadline if log is not None else None
        return (
            deadline_at if deadline_at is not None and deadline_at > _epoch(now) else _epoch(now + self._ttl)
        )

    def _cached(self, scope: SessionScope, now: datetime) -> _Log:
        """The log this container knows of the session (reset when its session expired)."""
        pk, clock = session_partition(scope), _epoch(now)
        with self._lock:
            log = self._logs.get(pk)
            if log is None or (log.deadline is not None and log.deadline <= clock):
                log = self._logs[pk] = _Log()
            self._logs.move_to_end(pk)
            while len(self._logs) > CACHED_SESSIONS:
                self._logs.popitem(last=False)
            return log

    def _read_log(self, scope: SessionScope, now: datetime, *, consistent: bool) -> _Log:
        """The cached log of the session, brought up to date by reading only the entries past it."""
        log = self._cached(scope, now)
        with self._lock:
            after = log.answered
        entries = list(self._log_entries(session_partition(scope), after + 1, consistent))
        with self._lock:
            log.extend(entries, _epoch(now))
        return log

    def _log_entries(self, pk: str, first: int, consistent: bool) -> Iterator[Item]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":first": {"S": f"{LOG}{first:0{LOG_DIGITS}d}"},
                ":last": {"S": LAST_LOG_KEY},
            },
            "ConsistentRead": consistent,
        }
        while True:
            _, response = self._call("query", **request)
            yield from response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _both(self, first: Callable[[], R], second: Callable[[], Any]) -> tuple[R, Any]:
        """Two calls as one round trip: the second on a worker thread (with the request's deadline)."""
        other: Future[Any] = self._pool.submit(backend_calls.carry(second))
        try:
            mine = first()
        finally:
            theirs = other.result()
        return mine, theirs

    def _call(self, operation: str, **request: Any) -> tuple[bool, Mapping[str, Any]]:
        """(True, response), or (False, error response) when a condition failed; anything else -> 503."""
        from botocore.exceptions import ClientError

        with aws_failures("dynamodb", f"sessions {operation}"):
            try:
                return True, getattr(self._client, operation)(**request)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                    return False, exc.response
                raise


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())
