"""``DynamoKnowledgeBaseRecords``: bedrock-agent's small records (client tokens, ingestion jobs) in the
documents table, beside the file statuses, under ``pk = "<kind>#<context>"``: never a context id (those
hold no '#'), so no listing of files ever meets them, and no key of one context addresses another's."""

from __future__ import annotations

import json
from typing import Any

from ..aws import aws_failures


class DynamoKnowledgeBaseRecords:
    """Implements ``knowledge_bases.ports.Records``."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def get(self, kind: str, context_id: str, key: str) -> dict[str, Any] | None:
        with aws_failures("dynamodb", "GetItem knowledge base record"):
            item = self._client.get_item(
                TableName=self._table, Key=_key(kind, context_id, key), ConsistentRead=True
            ).get("Item")
        return None if item is None else dict(json.loads(item["record"]["S"]))

    def put(self, kind: str, context_id: str, key: str, record: dict[str, Any], *, new: bool = False) -> bool:
        item = {**_key(kind, context_id, key), "record": {"S": json.dumps(record, sort_keys=True)}}
        request: dict[str, Any] = {"TableName": self._table, "Item": item}
        if new:
            request["ConditionExpression"] = "attribute_not_exists(pk)"
        with aws_failures("dynamodb", "PutItem knowledge base record"):
            try:
                self._client.put_item(**request)
            except self._client.exceptions.ConditionalCheckFailedException:
                return False
        return True

    def page(
        self, kind: str, context_id: str, *, limit: int, after: str | None, descending: bool
    ) -> tuple[list[dict[str, Any]], str | None]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": f"{kind}#{context_id}"}},
            "Limit": limit,
            "ScanIndexForward": not descending,
            "ConsistentRead": True,
        }
        if after is not None:
            request["ExclusiveStartKey"] = _key(kind, context_id, after)
        with aws_failures("dynamodb", "Query knowledge base records"):
            response = self._client.query(**request)
        last = response.get("LastEvaluatedKey")
        records = [dict(json.loads(item["record"]["S"])) for item in response.get("Items", [])]
        return records, None if last is None else last["sk"]["S"]


def _key(kind: str, context_id: str, key: str) -> dict[str, Any]:
    return {"pk": {"S": f"{kind}#{context_id}"}, "sk": {"S": key}}
