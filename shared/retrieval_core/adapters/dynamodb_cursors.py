"""``DynamoCursorStore``: frozen rankings of paged requests in their own table (``CursorsTable``).

One item per cursor, ``pk = "{ctx}#{cursor_id}"`` (the context first, like every key), TTL attribute
``expires_at``. The ranking is compact JSON (with its base position and the first page's id
fingerprints, base64), zlib-compressed into one binary attribute: 1,000 hybrid entries (ids, scores
and both arms' signals) stay far below DynamoDB's 400 KB item limit (about 30 KB).
A save is conditional on the version, so two concurrent extensions of one ranking cannot both land.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from ..aws import aws_failures
from ..models.cursors import FrozenEntry, FrozenRanking
from ..models.hits import Signal
from .dynamodb_keys import TTL_ATTRIBUTE, partition


class DynamoCursorStore:
    """Implements ``CursorStore``."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def load(self, context_id: str, cursor_id: str, now: int) -> FrozenRanking | None:
        key = {"pk": {"S": partition(context_id, cursor_id)}}
        with aws_failures("dynamodb", "GetItem cursor"):
            item = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True).get("Item")
        if item is None or int(item[TTL_ATTRIBUTE]["N"]) <= now:
            return None  # DynamoDB deletes expired items lazily; an expired one is gone already
        return _decode(zlib.decompress(item["ranking"]["B"]), int(item["version"]["N"]))

    def save(self, context_id: str, cursor_id: str, ranking: FrozenRanking, *, expires_at: int) -> bool:
        from botocore.exceptions import ClientError

        item = {
            "pk": {"S": partition(context_id, cursor_id)},
            "version": {"N": str(ranking.version)},
            TTL_ATTRIBUTE: {"N": str(expires_at)},
            "ranking": {"B": zlib.compress(_encode(ranking), 6)},
        }
        with aws_failures("dynamodb", "PutItem cursor"):
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item=item,
                    ConditionExpression="attribute_not_exists(pk) OR version < :version",
                    ExpressionAttributeValues={":version": {"N": str(ranking.version)}},
                )
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                    return False
                raise
        return True


def _encode(ranking: FrozenRanking) -> bytes:
    entries = [
        [e.id, e.score, {arm: [s.rank, s.score] for arm, s in e.signals.items()}, list(e.found_by)]
        for e in ranking.entries
    ]
    body = {
        "f": ranking.fingerprint,
        "a": list(ranking.arms),
        "c": ranking.complete,
        "b": ranking.base,
        "s": base64.b64encode(ranking.shown).decode(),
        "e": entries,
    }
    return json.dumps(body, separators=(",", ":")).encode()


def _decode(raw: bytes, version: int) -> FrozenRanking:
    body = json.loads(raw)
    return FrozenRanking(
        fingerprint=body["f"],
        arms=tuple(body["a"]),
        complete=body["c"],
        version=version,
        base=body["b"],
        shown=base64.b64decode(body["s"]),
        entries=tuple(
            FrozenEntry(
                id=entry_id,
                score=score,
                signals={arm: Signal(rank=rank, score=s) for arm, (rank, s) in signals.items()},
                found_by=tuple(found_by),
            )
            for entry_id, score, signals, found_by in body["e"]
        ),
    )
