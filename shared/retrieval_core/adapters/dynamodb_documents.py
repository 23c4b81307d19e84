"""``DynamoDocumentStatuses``: each file's status in ``DocumentsTable``, ``pk = "{ctx}"`` and
``sk = "{key relative to contexts/<ctx>/}"``: one Query lists a context's files under a prefix in key
order, and no key can address another context's rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..aws import aws_failures
from ..documents.status import DocumentStatus, StatusPage
from .dynamodb_writer import DynamoDBBatchWriter
from .row_ref import RowRef

BOOKKEEPING = ("content_hash", "sidecar_hash", "chunking", "sequencer", "generation")


class DynamoDocumentStatuses:
    """Implements ``documents.status.DocumentStatusStore``."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def get(self, context_id: str, key: str) -> DocumentStatus | None:
        with aws_failures("dynamodb", "GetItem document status"):
            item = self._client.get_item(
                TableName=self._table, Key=_key(context_id, key), ConsistentRead=True
            ).get("Item")
        return None if item is None else _status(item)

    def put(self, context_id: str, status: DocumentStatus) -> None:
        item = {**_key(context_id, status.key), "record": {"S": _record(status)}}
        with aws_failures("dynamodb", "PutItem document status"):
            self._client.put_item(TableName=self._table, Item=item)

    def put_many(self, context_id: str, statuses: Sequence[DocumentStatus]) -> None:
        """``BatchWriteItem`` in batches of 25 (a few in flight, unprocessed items retried); a key named
        twice keeps its last status."""
        rows = [(RowRef(self._table, context_id, s.key), {"record": _record(s)}) for s in statuses]
        DynamoDBBatchWriter(self._client).put(rows)

    def page(self, context_id: str, prefix: str, *, limit: int, after: str | None) -> StatusPage:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :ctx AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":ctx": {"S": context_id}, ":prefix": {"S": prefix}},
            "Limit": limit,
        }
        if not prefix:
            request["KeyConditionExpression"] = "pk = :ctx"
            del request["ExpressionAttributeValues"][":prefix"]
        if after is not None:
            request["ExclusiveStartKey"] = _key(context_id, after)
        with aws_failures("dynamodb", "Query document statuses"):
            response = self._client.query(**request)
        last = response.get("LastEvaluatedKey")
        return StatusPage(
            documents=[_status(item) for item in response.get("Items", [])],
            next_token=None if last is None else last["sk"]["S"],
        )


def _record(status: DocumentStatus) -> str:
    """The stored record: the public fields and, beside them, the bookkeeping the dump leaves out."""
    record = {**status.model_dump(mode="json"), **{name: getattr(status, name) for name in BOOKKEEPING}}
    return json.dumps(record, sort_keys=True)


def _key(context_id: str, key: str) -> dict[str, Any]:
    return {"pk": {"S": context_id}, "sk": {"S": key}}


def _status(item: dict[str, Any]) -> DocumentStatus:
    return DocumentStatus.model_validate(json.loads(item["record"]["S"]))
