"""In-memory stand-ins for the loader's write ports (``ports.ItemWriter``, ``LineageWriter``,
``MetadataKeyLedger``): what a backend must do for the loader, with nothing of OpenSearch or DynamoDB.

The lineage fake keeps, per item, its card and the other rows it owns (one per link target, named like
the reverse-link rows of the real design), so a test sees a changed item's stale rows go."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from retrieval_core.errors import BackendUnavailableError
from retrieval_core.models.item import Item
from retrieval_core.ports import ItemKey, WriteRefusal


class MemoryItemWriter:
    def __init__(self) -> None:
        self.documents: dict[tuple[str, str], tuple[Item, list[float]]] = {}
        self.prepared: set[str] = set()
        self.refreshed: set[str] = set()
        self.refusing: dict[str, WriteRefusal] = {}
        """Items the store refuses, by id, with the refusal it answers."""
        self.unavailable = False

    def prepare(self, context_ids: Iterable[str]) -> None:
        self._answer()
        self.prepared |= set(context_ids)

    def index(self, items: Sequence[tuple[Item, Sequence[float]]]) -> list[WriteRefusal]:
        self._answer()
        refused = [self.refusing[item.id] for item, _ in items if item.id in self.refusing]
        for item, vector in items:
            if item.id not in self.refusing:
                self.documents[(item.context_id, item.id)] = (item, list(vector))
        return refused

    def delete(self, keys: Sequence[ItemKey]) -> list[str]:
        self._answer()
        for key in keys:
            self.documents.pop((key.context_id, key.item_id), None)
        return []

    def refresh(self, context_ids: Iterable[str]) -> None:
        self._answer()
        self.refreshed |= set(context_ids)

    def _answer(self) -> None:
        if self.unavailable:
            raise BackendUnavailableError("the search store is down")


class MemoryLineageWriter:
    def __init__(self) -> None:
        self.cards: dict[tuple[str, str], Item] = {}
        self.rows: set[tuple[str, str]] = set()
        """(context, row name) of every row but the cards: ``link:<target>:<item>``."""

    def write(self, items: Sequence[Item]) -> set[str]:
        existed = {item.id for item in items if (item.context_id, item.id) in self.cards}
        for item in items:
            previous = self.cards.get((item.context_id, item.id))
            if previous is not None:
                self.rows -= _rows_of(previous)
            self.rows |= _rows_of(item)
            self.cards[(item.context_id, item.id)] = item
        return existed

    def discard(self, items: Sequence[Item]) -> None:
        for item in items:
            self.rows -= _rows_of(item)
            self.cards.pop((item.context_id, item.id), None)

    def delete_links(self, keys: Sequence[ItemKey]) -> set[str]:
        carded = set()
        for key in keys:
            card = self.cards.get((key.context_id, key.item_id))
            if card is not None:
                carded.add(key.item_id)
                self.rows -= _rows_of(card)
        return carded

    def delete_cards(self, keys: Sequence[ItemKey]) -> None:
        for key in keys:
            self.cards.pop((key.context_id, key.item_id), None)


def _rows_of(item: Item) -> set[tuple[str, str]]:
    return {(item.context_id, f"link:{target}:{item.id}") for target in item.source_ids}


class MemoryKeyLedger:
    def __init__(self) -> None:
        self.keys: dict[str, set[str]] = {}

    def keys_of(self, context_id: str) -> set[str]:
        return set(self.keys.get(context_id, set()))

    def add_within(self, context_id: str, keys: set[str], cap: int) -> bool:
        recorded = self.keys.setdefault(context_id, set())
        if len(recorded) + len(keys) > cap:
            return False
        recorded.update(keys)
        return True
