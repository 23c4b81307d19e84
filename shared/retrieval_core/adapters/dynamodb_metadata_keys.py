"""``MetadataKeyLedger`` on DynamoDB: the undeclared metadata keys a context uses in the pool, in one row
of its own (``{ctx}#@metadata-keys`` in the lineage table; item partitions are ``{ctx}#{ctx}:...``, so
the two never meet). The cap on them is the loader's (``loading/metadata_keys.py``)."""

from __future__ import annotations

from typing import Any

from ..aws import aws_failures
from .dynamodb_keys import partition

KEYS_PARTITION = "@metadata-keys"
KEYS_SORT_KEY = "KEYS"
KEYS_ATTRIBUTE = "keys"


class DynamoDBMetadataKeyLedger:
    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def keys_of(self, context_id: str) -> set[str]:
        with aws_failures("dynamodb", "get_item"):
            row = self._client.get_item(
                TableName=self._table, Key=self._key(context_id), ConsistentRead=True
            ).get("Item", {})
        return set(row.get(KEYS_ATTRIBUTE, {}).get("SS", []))

    def record(self, context_id: str, keys: set[str]) -> None:
        with aws_failures("dynamodb", "update_item"):
            self._client.update_item(
                TableName=self._table,
                Key=self._key(context_id),
                UpdateExpression="ADD #keys :keys",  # KEYS is a reserved word
                ExpressionAttributeNames={"#keys": KEYS_ATTRIBUTE},
                ExpressionAttributeValues={":keys": {"SS": sorted(keys)}},
            )

    @staticmethod
    def _key(context_id: str) -> dict[str, dict[str, str]]:
        return {"pk": {"S": partition(context_id, KEYS_PARTITION)}, "sk": {"S": KEYS_SORT_KEY}}
