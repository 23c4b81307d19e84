"""LineageReader over the lineage table: an item's partition in one Query, ancestor cards in batches.

``backend_calls`` counts every Query page and every BatchGetItem request (including retries of
unprocessed keys), so responses can report it. The loader-internal manifest is never read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from .. import backend_calls
from ..aws import aws_failures
from ..backend_calls import CallCounter
from ..config import Settings
from ..errors import BackendUnavailableError
from ..models.lineage import LineageCard, LineageLinks
from . import dynamodb_keys as keys
from .dynamodb_client import dynamodb_client
from .dynamodb_reads import as_float, as_int, plain

log = logging.getLogger(__name__)

BATCH_GET_LIMIT = 100
MAX_BATCH_ROUNDS = 6
_NAMES = {"#status": "status"}
_CARD_PROJECTION = (
    "pk, sk, context_id, id, kind, #status, confidence, created_at, "
    "source_ids, grounding, supersedes, contradicts"
)
_LINK_FIELDS = {
    keys.DERIVED_TO: "derived_to",
    keys.SUPERSEDED_BY: "superseded_by",
    keys.CONTRADICTED_BY: "contradicted_by",
}


class DynamoDBLineage:
    def __init__(self, settings: Settings, client: Any | None = None) -> None:
        self._client = client if client is not None else dynamodb_client(settings)
        self._table = settings.lineage_table
        self._calls = CallCounter()

    @property
    def backend_calls(self) -> int:
        return self._calls.value

    def item_with_links(self, context_id: str, item_id: str) -> tuple[LineageCard, LineageLinks] | None:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": "context_id = :ctx",
            "ProjectionExpression": _CARD_PROJECTION,
            "ExpressionAttributeNames": _NAMES,
            "ExpressionAttributeValues": {
                ":pk": {"S": keys.partition(context_id, item_id)},
                ":ctx": {"S": context_id},
            },
        }
        card: LineageCard | None = None
        links: dict[str, list[str]] = {field: [] for field in _LINK_FIELDS.values()}
        with aws_failures("dynamodb", "query"):
            while True:
                self._calls.add()
                page = self._client.query(**request)
                for row in map(plain, page.get("Items", [])):
                    if row["sk"] == keys.ITEM_CARD:
                        card = _card(row, item_id)
                        continue
                    link, other_id = keys.split_reverse_link(row["sk"])
                    if link in _LINK_FIELDS and other_id:
                        links[_LINK_FIELDS[link]].append(other_id)
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return None if card is None else (card, LineageLinks(**links))

    def cards(self, context_id: str, ids: Sequence[str]) -> dict[str, LineageCard]:
        by_partition = {keys.partition(context_id, item_id): item_id for item_id in ids}
        wanted = list(by_partition.values())
        cards: dict[str, LineageCard] = {}
        with aws_failures("dynamodb", "batch_get_item"):
            for start in range(0, len(wanted), BATCH_GET_LIMIT):
                for row in self._batch_get(context_id, wanted[start : start + BATCH_GET_LIMIT]):
                    item_id = by_partition.get(row["pk"])
                    if item_id and row.get("context_id") == context_id:
                        card = _card(row, item_id)
                        if card is not None:
                            cards[item_id] = card
        return cards

    def _batch_get(self, context_id: str, ids: list[str]) -> list[dict[str, Any]]:
        """All ITEM rows of one chunk, retrying unprocessed keys with backoff as DynamoDB asks."""
        pending = [
            {"pk": {"S": keys.partition(context_id, item_id)}, "sk": {"S": keys.ITEM_CARD}} for item_id in ids
        ]
        rows: list[dict[str, Any]] = []
        for attempt in range(MAX_BATCH_ROUNDS):
            if attempt:
                pause = min(0.05 * 2**attempt, 1.0)
                backend_calls.require(pause)
                time.sleep(pause)
            self._calls.add()
            response = self._client.batch_get_item(
                RequestItems={
                    self._table: {
                        "Keys": pending,
                        "ProjectionExpression": _CARD_PROJECTION,
                        "ExpressionAttributeNames": _NAMES,
                    }
                }
            )
            rows += map(plain, response.get("Responses", {}).get(self._table, []))
            pending = response.get("UnprocessedKeys", {}).get(self._table, {}).get("Keys", [])
            if not pending:
                return rows
        log.warning("batch_get_item left %d keys unprocessed", len(pending))
        raise BackendUnavailableError()


def _card(row: dict[str, Any], item_id: str) -> LineageCard | None:
    """The card row as a LineageCard (numbers converted); a malformed or mismatched row reads as absent."""
    if row.get("id") != item_id:
        return None
    try:
        return LineageCard.model_validate(
            {
                **row,
                "confidence": as_float(row.get("confidence")),
                "grounding": [
                    {**g, "start": as_int(g.get("start")), "end": as_int(g.get("end"))}
                    for g in row.get("grounding") or []
                ],
            }
        )
    except (ValidationError, TypeError, AttributeError):
        log.warning("skipping malformed lineage card")
        return None
