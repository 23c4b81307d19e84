"""Retrieval-session state in the Sessions table: small items in one partition per session, so what a
request costs does not grow with the session (design and costs: docs/STORAGE.md).

    pk = "{ctx}#{session_id}", or "{ctx}#@{principal digest}#{session_id}" when the authorizer named
         the caller (session ids cannot contain "#" or "@", so the two forms never meet)
    sk = "Q#{query key}"     the claim: state pending|done, sequence once answered, reserved_at
    sk = "L#{sequence:08d}"  one immutable log entry per answered query: its key, the position of its
                             first new source, and the new sources' ids (positions first, first + 1, ...)
    expires_at               on every item: the session's deadline, set by its first log entry

Atomicity comes from conditional puts alone: a claim is a put of ``Q#{key}`` that fails when the key is
claimed (the duplicate check); an answer is a put of ``L#{n}`` that fails when entry ``n`` exists (so
sequence numbers, source positions and the budget, ``n <= limit``, are decided by one write; a lost race
re-reads the log and tries ``n + 1``).

The log only grows at its end and its entries never change, so each container keeps the logs it has read
and asks DynamoDB only for entries past the last one it knows: a request reads the log's new tail, not
the whole session. A container new to a session reads its whole log once.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .. import keys
from ..config import Settings
from ..errors import BackendUnavailableError
from ..policy.state import (
    AlreadySeen,
    Completed,
    Completion,
    OverBudget,
    Refusal,
    Reservation,
    Reserved,
    SessionScope,
    SessionState,
    source_name,
)
from .dynamodb_client import dynamodb_client
from .dynamodb_reads import backend_failures

if TYPE_CHECKING:
    from botocore.client import BaseClient as DynamoDBClient

logger = logging.getLogger(__name__)

CLAIM = "Q#"
LOG = "L#"
LOG_DIGITS = 8
LAST_LOG_KEY = LOG + "9" * LOG_DIGITS
PENDING, DONE = "pending", "done"
CLAIM_TIMEOUT = timedelta(minutes=15)
"""A pending claim older than this belongs to an invocation that died without releasing it (Lambda's
longest timeout is 15 minutes); the query may then be claimed again."""
COMPLETE_ATTEMPTS = 32
"""Optimistic retries when appending to the log; each lost race means another query was answered."""
CACHED_SESSIONS = 1024

Item = dict[str, dict[str, Any]]


def session_partition(scope: SessionScope) -> str:
    """The partition of a session: its context, then its principal's digest (if any), then its id."""
    if scope.principal is None:
        return keys.partition(scope.context_id, scope.session_id)
    digest = hashlib.sha256(scope.principal.encode()).hexdigest()[:32]
    return keys.partition(scope.context_id, f"@{digest}{keys.KEY_SEPARATOR}{scope.session_id}")


@dataclass(slots=True)
class _Log:
    """What a container knows of one session's log: a prefix of it, which never changes once written."""

    deadline: int | None = None
    """Epoch seconds after which the session is gone (the first entry's ``expires_at``)."""
    keys: dict[str, int] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)
    """Item id -> position, in position order."""

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

    def check(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Refusal | None:
        log = self._read_log(scope, now, consistent=False)
        if key in log.keys:
            return AlreadySeen(log.keys[key])
        return OverBudget(log.answered) if log.answered >= limit else None

    def reserve(self, scope: SessionScope, key: str, now: datetime) -> Reservation:
        """One conditional put of the claim; a live claim (answered, or pending and not stale) refuses."""
        pk, clock = session_partition(scope), _epoch(now)
        ok, response = self._call(
            "put_item",
            TableName=self._table,
            Item={
                "pk": {"S": pk},
                "sk": {"S": CLAIM + key},
                "state": {"S": PENDING},
                "reserved_at": {"N": str(clock)},
                keys.TTL_ATTRIBUTE: {"N": str(self._deadline(pk, now))},
            },
            ConditionExpression="attribute_not_exists(sk) OR #expires <= :now"
            " OR (#state = :pending AND reserved_at <= :stale)",
            ExpressionAttributeNames={"#expires": keys.TTL_ATTRIBUTE, "#state": "state"},
            ExpressionAttributeValues={
                ":now": {"N": str(clock)},
                ":pending": {"S": PENDING},
                ":stale": {"N": str(_epoch(now - CLAIM_TIMEOUT))},
            },
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        if ok:
            return Reserved()
        old = response.get("Item") or {}
        answered = old.get("state", {}).get("S") == DONE and "sequence" in old
        return AlreadySeen(int(old["sequence"]["N"]) if answered else None)

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], limit: int, now: datetime
    ) -> Completion:
        """Append the answer to the log (one conditional put), then mark the claim answered."""
        pk, clock = session_partition(scope), _epoch(now)
        wanted = list(dict.fromkeys(item_ids))
        for attempt in range(COMPLETE_ATTEMPTS):
            log = self._read_log(scope, now, consistent=attempt > 0)
            with self._lock:
                sequence, known = log.answered + 1, dict(log.positions)
                deadline = log.deadline or _epoch(now + self._ttl)
            if sequence > limit:
                self.release(scope, key, now)
                return OverBudget(sequence - 1)
            new = [item_id for item_id in wanted if item_id not in known]
            first = len(known) + 1
            ok, _ = self._call(
                "put_item",
                TableName=self._table,
                Item={
                    "pk": {"S": pk},
                    "sk": {"S": f"{LOG}{sequence:0{LOG_DIGITS}d}"},
                    "query": {"S": key},
                    "first": {"N": str(first)},
                    "sources": {"L": [{"S": item_id} for item_id in new]},
                    keys.TTL_ATTRIBUTE: {"N": str(deadline)},
                },
                ConditionExpression="attribute_not_exists(sk) OR #expires <= :now",
                ExpressionAttributeNames={"#expires": keys.TTL_ATTRIBUTE},
                ExpressionAttributeValues={":now": {"N": str(clock)}},
            )
            if ok:
                known.update({item_id: first + n for n, item_id in enumerate(new)})
                self._mark_answered(pk, key, sequence, deadline)
                return Completed(sequence, {item_id: source_name(known[item_id]) for item_id in wanted})
        logger.error("could not append to a session's log after %d attempts", COMPLETE_ATTEMPTS)
        raise BackendUnavailableError()

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        """Delete the claim if it is still pending (an answered claim is never deleted)."""
        self._call(
            "delete_item",
            TableName=self._table,
            Key={"pk": {"S": session_partition(scope)}, "sk": {"S": CLAIM + key}},
            ConditionExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues={":pending": {"S": PENDING}},
        )

    def _mark_answered(self, pk: str, key: str, sequence: int, deadline: int) -> None:
        """Let later duplicates cite ``sequence``. The answer already counts (its log entry is written), so
        a failure here is logged, not raised: the log still names the key, and ``check`` reads it there."""
        try:
            self._call(
                "update_item",
                TableName=self._table,
                Key={"pk": {"S": pk}, "sk": {"S": CLAIM + key}},
                UpdateExpression="SET #state = :done, #sequence = :sequence, #expires = :deadline",
                ExpressionAttributeNames={
                    "#state": "state",
                    "#sequence": "sequence",
                    "#expires": keys.TTL_ATTRIBUTE,
                },
                ExpressionAttributeValues={
                    ":done": {"S": DONE},
                    ":sequence": {"N": str(sequence)},
                    ":deadline": {"N": str(deadline)},
                },
            )
        except BackendUnavailableError:
            logger.warning("an answered query's claim was not marked answered")

    def _deadline(self, pk: str, now: datetime) -> int:
        with self._lock:
            log = self._logs.get(pk)
            deadline = log.deadline if log is not None else None
        return deadline if deadline is not None and deadline > _epoch(now) else _epoch(now + self._ttl)

    def _read_log(self, scope: SessionScope, now: datetime, *, consistent: bool) -> _Log:
        """The cached log of the session, brought up to date by reading only the entries past it."""
        pk, clock = session_partition(scope), _epoch(now)
        with self._lock:
            log = self._logs.get(pk)
            if log is None or (log.deadline is not None and log.deadline <= clock):
                log = self._logs[pk] = _Log()
            self._logs.move_to_end(pk)
            while len(self._logs) > CACHED_SESSIONS:
                self._logs.popitem(last=False)
            after = log.answered
        entries = list(self._log_entries(pk, after + 1, consistent))
        with self._lock:
            log.extend(entries, clock)
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

    def _call(self, operation: str, **request: Any) -> tuple[bool, Mapping[str, Any]]:
        """(True, response), or (False, error response) when a condition failed; anything else -> 503."""
        from botocore.exceptions import ClientError

        with backend_failures(f"sessions {operation}"):
            try:
                return True, getattr(self._client, operation)(**request)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                    return False, exc.response
                raise


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())
