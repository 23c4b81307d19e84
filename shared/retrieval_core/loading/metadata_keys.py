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
from .parse import LineError, Upsert


class PoolKeyBudget:
    def __init__(
        self, ledger: MetadataKeyLedger, declared: MetadataSchema, cap: int = LIMITS.pool_metadata_keys
    ) -> None:
        self._ledger = ledger
        self._declared = set(declared)
        self._cap = cap
        self._known: dict[str, set[str]] = {}

    def admit(self, lines: Iterable[Upsert]) -> list[LineError]:
        """Record the new keys of ``lines`` (in line order) while their contexts stay within the cap;
        returns an error for each line that would pass it (those lines must not be written).

        The lines are judged against the keys this budget knows, then each context's new keys are
        reserved in one conditional write. When another writer got there first (the write is refused),
        the context's keys are read again and its lines reserved one by one, so the cap holds however
        many loads run at once: of twelve loads racing with 64 new keys each under a cap of 100, one
        lands."""
        refused: list[LineError] = []
        admitted: dict[str, list[tuple[Upsert, set[str]]]] = {}
        added: dict[str, set[str]] = {}
        for parsed in lines:
            context_id = parsed.item.context_id
            known = self._keys_of(context_id)
            new = set(parsed.item.metadata) - self._declared - known - added.get(context_id, set())
            if not new:
                continue
            if len(known) + len(added.get(context_id, set())) + len(new) > self._cap:
                refused.append(self._refusal(parsed, new))
                continue
            added.setdefault(context_id, set()).update(new)
            admitted.setdefault(context_id, []).append((parsed, new))
        for context_id, keys in added.items():
            if self._reserve(context_id, keys):
                continue
            for parsed, new in admitted[context_id]:  # raced: line by line against the keys as they are
                if not self._reserve(context_id, new):
                    refused.append(self._refusal(parsed, new - self._known[context_id]))
        return sorted(refused, key=lambda error: error.line)

    def _reserve(self, context_id: str, keys: set[str]) -> bool:
        """Record ``keys`` unless the context would pass the cap. Each refused write means another writer
        added keys meanwhile, so the loop ends within ``cap`` rounds."""
        while True:
            known = self._keys_of(context_id)
            new = keys - known
            if not new:
                return True
            if len(known) + len(new) > self._cap:
                return False
            if self._ledger.add_within(context_id, new, self._cap):
                known |= new
                return True
            self._known[context_id] = self._ledger.keys_of(context_id)

    def _refusal(self, parsed: Upsert, new: set[str]) -> LineError:
        return LineError(
            parsed.position,
            "metadata",
            f"adds keys {', '.join(sorted(new)[:5])}: a context may use at most {self._cap} "
            "distinct undeclared metadata keys in the pool model (reuse keys, or declare them)",
        )

    def _keys_of(self, context_id: str) -> set[str]:
        if context_id not in self._known:
            self._known[context_id] = self._ledger.keys_of(context_id)
        return self._known[context_id]
