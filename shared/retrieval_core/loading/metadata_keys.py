"""The pool model's per-context budget of metadata keys: one tenant's keys can never fill the shared
index's field limit that every tenant's writes depend on.

Each undeclared metadata key is one field of the shared mapping (declared keys are mapped once for
everybody and cost nothing). A context may use at most ``StorageLimits.pool_metadata_keys`` distinct
undeclared keys; the keys it uses are kept by a ``MetadataKeyLedger`` (on DynamoDB: one row per
context). A line that would take its context past the cap is rejected with the cap named; keys already
recorded stay free to use.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..models.limits import LIMITS
from ..models.metadata import MetadataSchema
from ..ports import MetadataKeyLedger
from .parse import LineError, ParsedLine


class PoolKeyBudget:
    def __init__(
        self, ledger: MetadataKeyLedger, declared: MetadataSchema, cap: int = LIMITS.pool_metadata_keys
    ) -> None:
        self._ledger = ledger
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
            self._ledger.record(context_id, keys)
            self._known[context_id] |= keys
        return refused

    def _keys_of(self, context_id: str) -> set[str]:
        if context_id not in self._known:
            self._known[context_id] = self._ledger.keys_of(context_id)
        return self._known[context_id]
