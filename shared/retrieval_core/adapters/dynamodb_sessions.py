"""Retrieval-session state in the Sessions table, every transition one conditional write.

One item per session, ``pk = keys.partition(context_id, session_id)``, holding:

    successful     queries that returned a result
    used           budget slots taken: successful plus in flight
    accepted       the sequence counter (reservations ever made)
    source_count   sources collected; source ``n`` is named ``S{n}``
    q#{key}        one attribute per query key seen: its sequence number, or 0 when it was rejected
    s#{item_id}    one attribute per source: its position
    expires_at     TTL, pushed forward by every write

Keys and sources are top-level attributes so that "not seen yet" is a plain ``attribute_not_exists``
and no map has to exist before the first write. DynamoDB deletes expired items lazily, so reads treat
an item past ``expires_at`` as absent and delete it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .. import keys
from ..config import Settings
from ..errors import BackendUnavailableError
from ..policy.state import (
    REJECTED,
    AlreadySeen,
    OverBudget,
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

KEY_PREFIX = "q#"
SOURCE_PREFIX = "s#"
COMPLETE_ATTEMPTS = 32
"""Optimistic retries when naming sources; each failed attempt means another query completed."""

_ATTRIBUTES = {
    "#successful": "successful",
    "#used": "used",
    "#accepted": "accepted",
    "#sources": "source_count",
}
_ONE = {"N": "1"}
_ZERO = {"N": "0"}

Item = dict[str, dict[str, Any]]


class DynamoSessionStore:
    """``SessionStore`` backed by the Sessions table."""

    def __init__(self, client: DynamoDBClient, table: str, ttl: timedelta) -> None:
        self._client = client
        self._table = table
        self._ttl = ttl

    @classmethod
    def from_settings(cls, settings: Settings) -> DynamoSessionStore:
        return cls(
            dynamodb_client(settings),
            settings.sessions_table,
            timedelta(seconds=settings.session_ttl_seconds),
        )

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        item = self._live_item(scope, now)
        return _state(item) if item is not None else None

    def reserve(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Reservation:
        """One UpdateItem: key unseen AND used < limit, then mark the key, take a slot, count it."""
        ok, attributes = self._update(
            scope,
            now,
            "SET #key = if_not_exists(#accepted, :zero) + :one, #accepted = if_not_exists(#accepted, :zero)"
            " + :one, #used = if_not_exists(#used, :zero) + :one, #successful = if_not_exists(#successful,"
            " :zero), #sources = if_not_exists(#sources, :zero)",
            condition="attribute_not_exists(#key) AND (attribute_not_exists(#used) OR #used < :limit)",
            names={**_ATTRIBUTES, "#key": KEY_PREFIX + key},
            values={":limit": {"N": str(limit)}, ":one": _ONE, ":zero": _ZERO},
            return_values="UPDATED_NEW",
        )
        if ok:
            return Reserved(int(attributes["accepted"]["N"]))
        old = attributes or self._get(scope) or {}
        if KEY_PREFIX + key in old:
            return AlreadySeen(int(old[KEY_PREFIX + key]["N"]))
        return OverBudget(_number(old, "used"))

    def mark_seen(self, scope: SessionScope, key: str, now: datetime) -> None:
        """Adds the key only; a concurrent acceptance of the same key keeps its sequence number."""
        self._update(
            scope,
            now,
            "SET #key = if_not_exists(#key, :rejected)",
            names={"#key": KEY_PREFIX + key},
            values={":rejected": {"N": str(REJECTED)}},
        )

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], now: datetime
    ) -> dict[str, str]:
        """Count the success and append the new sources in one write, conditioned on the source count it
        read (optimistic: a concurrent completion makes it re-read and renumber)."""
        wanted = list(dict.fromkeys(item_ids))
        for _ in range(COMPLETE_ATTEMPTS):
            item = self._get(scope) or {}
            positions = _sources(item)
            count = _number(item, "source_count")
            new = [item_id for item_id in wanted if item_id not in positions]
            positions.update({item_id: count + n for n, item_id in enumerate(new, start=1)})
            names = {f"#s{n}": SOURCE_PREFIX + item_id for n, item_id in enumerate(new)}
            values = {f":s{n}": {"N": str(positions[item_id])} for n, item_id in enumerate(new)}
            sets = "".join(f", #s{n} = :s{n}" for n in range(len(new)))
            ok, _ = self._update(
                scope,
                now,
                f"SET #successful = #successful + :one, #sources = :count{sets}",
                condition="#sources = :seen_count",
                names={**names, "#successful": "successful", "#sources": "source_count"},
                values={
                    **values,
                    ":one": _ONE,
                    ":count": {"N": str(count + len(new))},
                    ":seen_count": {"N": str(count)},
                },
            )
            if ok:
                return {item_id: source_name(positions[item_id]) for item_id in wanted}
        logger.error("could not record a session's sources after %d attempts", COMPLETE_ATTEMPTS)
        raise BackendUnavailableError()

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        self._update(
            scope,
            now,
            "SET #used = #used - :one",
            condition="#used > :zero",
            names={"#used": "used"},
            values={":one": _ONE, ":zero": _ZERO},
        )

    def _live_item(self, scope: SessionScope, now: datetime) -> Item | None:
        item = self._get(scope)
        if (
            item is None
            or keys.TTL_ATTRIBUTE not in item
            or _number(item, keys.TTL_ATTRIBUTE) > now.timestamp()
        ):
            return item
        self._call(
            "delete_item",
            TableName=self._table,
            Key=_key(scope),
            ConditionExpression="#expires = :expires",
            ExpressionAttributeNames={"#expires": keys.TTL_ATTRIBUTE},
            ExpressionAttributeValues={":expires": item[keys.TTL_ATTRIBUTE]},
        )
        return None

    def _get(self, scope: SessionScope) -> Item | None:
        _, response = self._call("get_item", TableName=self._table, Key=_key(scope), ConsistentRead=True)
        return response.get("Item")

    def _update(
        self,
        scope: SessionScope,
        now: datetime,
        update: str,
        *,
        condition: str | None = None,
        names: Mapping[str, str],
        values: Mapping[str, Any] | None = None,
        return_values: str = "NONE",
    ) -> tuple[bool, Item]:
        """Run an UpdateItem that also pushes the TTL forward. Returns (True, new attributes) or, when
        the condition failed, (False, the item as it was if DynamoDB returned it)."""
        expires = {"N": str(int((now + self._ttl).timestamp()))}
        request: dict[str, Any] = {
            "TableName": self._table,
            "Key": _key(scope),
            "UpdateExpression": f"{update}, #expires = :expires",
            "ExpressionAttributeNames": {"#expires": keys.TTL_ATTRIBUTE, **names},
            "ExpressionAttributeValues": {":expires": expires, **(values or {})},
            "ReturnValues": return_values,
        }
        if condition:
            request["ConditionExpression"] = condition
            request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        ok, response = self._call("update_item", **request)
        return ok, response.get("Attributes") or response.get("Item") or {}

    def _call(self, operation: str, **request: Any) -> tuple[bool, dict[str, Any]]:
        """(True, response), or (False, error response) when a condition failed; anything else -> 503."""
        from botocore.exceptions import ClientError

        with backend_failures(f"sessions {operation}"):
            try:
                return True, getattr(self._client, operation)(**request)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                    return False, exc.response
                raise


def _key(scope: SessionScope) -> dict[str, dict[str, str]]:
    return {"pk": {"S": keys.partition(scope.context_id, scope.session_id)}}


def _number(item: Item, attribute: str) -> int:
    return int(item[attribute]["N"]) if attribute in item else 0


def _sources(item: Item) -> dict[str, int]:
    """Item id -> position of every source collected."""
    return {
        name.removeprefix(SOURCE_PREFIX): int(value["N"])
        for name, value in item.items()
        if name.startswith(SOURCE_PREFIX)
    }


def _state(item: Item) -> SessionState:
    positions = _sources(item)
    return SessionState(
        successful=_number(item, "successful"),
        used=_number(item, "used"),
        accepted=_number(item, "accepted"),
        seen={
            name.removeprefix(KEY_PREFIX): int(value["N"])
            for name, value in item.items()
            if name.startswith(KEY_PREFIX)
        },
        sources=tuple(sorted(positions, key=positions.__getitem__)),
    )
