"""The pool model's per-context budget of metadata keys: one tenant's keys can never fill the shared
index's field limit that every tenant's writes depend on.

Each undeclared metadata key is one field of the shared mapping (declared keys are mapped once for
everybody and cost nothing). A context may use at most ``StorageLimits.pool_metadata_keys`` distinct
undeclared keys; the keys it uses are recorded in one DynamoDB row of its own (``{ctx}#@metadata-keys``
in the lineage table; item partitions are ``{ctx}#{ctx}:...``, so the two never meet). A line that would
take its context past the cap is rejected with the cap named; keys already recorded stay free to use.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..adapters.dynamodb_reads import backend_failures
from ..keys import partition
from ..models.limits import LIMITS
from ..models.metadata import MetadataSchema
from .parse import LineError, ParsedLine

KEYS_PARTITION = "@metadata-keys"
KEYS_SORT_KEY = "KEYS"
KEYS_ATTRIBUTE = "keys"


class PoolKeyBudget:
    def __init__(
        self, dynamodb: Any, table: str, declared: MetadataSchema, cap: int = LIMITS.pool_metadata_keys
    ) -> None:
        self._dynamodb = dynamodb
        self._table = table
        self._declared = set(declared)
        self._cap = cap
        self._known: dict[str, set[str]] = {}

    def admit(self, lines: Iterable[ParsedLine]) -> list[LineError]:
        """Record the new keys of ``lines`` (in line order) while their contexts stay within the cap;
        returns an error for each line that would pass it (those lines must not be written)."""
        refused: list[LineError] = []
        added: dict[str, set[str]] = {}
        for parsed in lines:
            context_id = parsed.item.context_id
            known = self._keys_of(context_id)
            new = set(parsed.item.metadata) - self._declared - known - added.get(context_id, set())
            if not new:
                continue
            if len(known) + len(added.get(context_id, set())) + len(new) > self._cap:
                refused.append(
                    LineError(
                        parsed.line,
                        "metadata",
                        f"adds keys {', '.join(sorted(new)[:5])}: a context may use at most {self._cap} "
                        "distinct undeclared metadata keys in the pool model (reuse keys, or declare them)",
                    )
                )
                continue
            added.setdefault(context_id, set()).update(new)
        for context_id, keys in added.items():
            self._record(context_id, keys)
        return refused

    def _keys_of(self, context_id: str) -> set[str]:
        if context_id not in self._known:
            with backend_failures("get_item"):
                row = self._dynamodb.get_item(
                    TableName=self._table, Key=self._key(context_id), ConsistentRead=True
                ).get("Item", {})
            self._known[context_id] = set(row.get(KEYS_ATTRIBUTE, {}).get("SS", []))
        return self._known[context_id]

    def _record(self, context_id: str, keys: set[str]) -> None:
        with backend_failures("update_item"):
            self._dynamodb.update_item(
                TableName=self._table,
                Key=self._key(context_id),
                UpdateExpression="ADD #keys :keys",  # KEYS is a reserved word
                ExpressionAttributeNames={"#keys": KEYS_ATTRIBUTE},
                ExpressionAttributeValues={":keys": {"SS": sorted(keys)}},
            )
        self._known[context_id] |= keys

    @staticmethod
    def _key(context_id: str) -> dict[str, dict[str, str]]:
        return {"pk": {"S": partition(context_id, KEYS_PARTITION)}, "sk": {"S": KEYS_SORT_KEY}}
