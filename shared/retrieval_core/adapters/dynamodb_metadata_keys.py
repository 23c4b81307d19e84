"""``MetadataKeyLedger`` on DynamoDB: the undeclared metadata keys a context uses in the pool, in one row
of its own (``{ctx}#@metadata-keys`` in the lineage table; item partitions are ``{ctx}#{ctx}:...``, so
the two never meet). The cap on them is the loader's (``loading/metadata_keys.py``); it holds under any
number of concurrent writers because each addition is a conditional write on the row's size."""

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

    def add_within(self, context_id: str, keys: set[str], cap: int) -> bool:
        """``ADD`` under the condition that the set's size leaves room for every key added (conservative
        when some were recorded meanwhile: the caller reads again and retries with fewer)."""
        from botocore.exceptions import ClientError

        with aws_failures("dynamodb", "update_item"):
            try:
                self._client.update_item(
                    TableName=self._table,
                    Key=self._key(context_id),
                    UpdateExpression="ADD #keys :keys",  # KEYS is a reserved word
                    ConditionExpression="attribute_not_exists(#keys) OR size(#keys) <= :room",
                    ExpressionAttributeNames={"#keys": KEYS_ATTRIBUTE},
                    ExpressionAttributeValues={
                        ":keys": {"SS": sorted(keys)},
                        ":room": {"N": str(cap - len(keys))},
                    },
                )
            except ClientError as refused:
                if refused.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                    raise
                return False
        return True

    @staticmethod
    def _key(context_id: str) -> dict[str, dict[str, str]]:
        return {"pk": {"S": partition(context_id, KEYS_PARTITION)}, "sk": {"S": KEYS_SORT_KEY}}
