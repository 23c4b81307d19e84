"""``LineageWriter`` on DynamoDB: the rows ``dynamodb_rows.rows_of`` derives for each item, written and
removed through ``DynamoDBBatchWriter``; each card keeps its item's manifest (the addresses of the other
rows), so a reload deletes exactly the rows a changed item no longer owns, and writes only the edge rows
it lacks when the card is otherwise unchanged (``WHOLE_ATTRIBUTE``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import dynamodb_keys as keys
from .dynamodb_rows import (
    MANIFEST_ATTRIBUTE,
    ItemRows,
    TableNames,
    decode_ref,
    manifest_addresses,
    rows_of,
    stored_manifest,
)
from .dynamodb_writer import DynamoDBBatchWriter, in_parallel, partition_rows, read_rows
from .row_ref import RowRef

if TYPE_CHECKING:
    from ..models.item import Item
    from ..ports import ItemKey

PARTITION_READERS = 8
WHOLE_ATTRIBUTE = "rows_whole"
"""On a card: every row its manifest lists was written, and none removed since. A reload whose card is
otherwise the same (status, confidence, created_at, grounding, ...: what an edge row copies) then puts
only the edge rows the manifest lacks: a back-link adding one name to a chunk naming n writes its 2n new
edges and the card, not all n(n+1). Whatever removes rows takes it off the card first, so a crash midway
leaves no card vouching for a row that is gone; a card written before it existed is written whole once."""
_NOT_CARD = frozenset({"pk", "sk", MANIFEST_ATTRIBUTE, WHOLE_ATTRIBUTE})


class DynamoDBLineageWriter:
    def __init__(self, client: Any, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._writer = DynamoDBBatchWriter(client)

    def write(self, items: Sequence[Item]) -> set[str]:
        """Rows first (with the cards of items losing rows put unsealed, listing old and new), then the
        rows they no longer own deleted, then the cards, sealed: a kill between any two rounds leaves every
        card listing each row it may have, and vouching only for rows that exist."""
        item_rows = [rows_of(item, self._tables) for item in items]
        old_cards = read_rows(self._client, [rows.card[0] for rows in item_rows])
        puts: list[tuple[RowRef, dict[str, Any]]] = []
        stale: list[RowRef] = []
        cards: list[tuple[RowRef, dict[str, Any]]] = []
        for rows in item_rows:
            ref, attrs = rows.card
            old = old_cards.get(ref)
            previous = _manifest_of(old)
            manifest = rows.manifest()
            same = old is not None and self._whole_and_same(old, attrs)
            puts += self._rows_to_put(rows, previous if same else set())
            gone = sorted(previous - set(manifest))
            if gone:
                stale += [decode_ref(encoded, self._tables) for encoded in gone]
                puts.append((ref, {**attrs, MANIFEST_ATTRIBUTE: stored_manifest(previous | set(manifest))}))
            if not (same and set(manifest) == previous):
                cards.append(
                    (ref, {**attrs, MANIFEST_ATTRIBUTE: stored_manifest(manifest), WHOLE_ATTRIBUTE: True})
                )
        self._writer.put(puts)
        self._writer.delete(stale)
        self._writer.put(cards)
        return {rows.card[1]["id"] for rows in item_rows if rows.card[0] in old_cards}

    def _whole_and_same(self, old: dict[str, Any], attrs: dict[str, Any]) -> bool:
        """The stored card vouches for its rows and says what ``attrs`` says (as stored values: a
        difference in spelling only costs a whole write)."""
        stored = {name: value for name, value in old.items() if name not in _NOT_CARD}
        return old.get(WHOLE_ATTRIBUTE) == {"BOOL": True} and stored == self._writer.attributes(attrs)

    def _rows_to_put(self, rows: ItemRows, present: set[str]) -> list[tuple[RowRef, dict[str, Any]]]:
        """The item's rows but the edge rows ``present`` lists. Reverse links are always put: they live
        on the partition of the item they point at, whose deletion removes them whatever card lists them."""
        if not present:
            return list(rows.owned)
        edges = self._tables.edges
        return [
            (ref, attrs)
            for (ref, attrs), address in zip(rows.owned, rows.addresses, strict=True)
            if ref.table != edges or address not in present
        ]

    def discard(self, items: Sequence[Item]) -> None:
        """The cards unsealed first, then every row, each card last in its item's list."""
        item_rows = [rows_of(item, self._tables) for item in items]
        self._writer.put(
            (rows.card[0], {**rows.card[1], MANIFEST_ATTRIBUTE: stored_manifest(rows.manifest())})
            for rows in item_rows
        )
        self._writer.delete(ref for rows in item_rows for ref in rows.refs())

    def delete_links(self, keys_: Sequence[ItemKey]) -> set[str]:
        carded: set[str] = set()
        doomed: list[RowRef] = []
        unsealed: list[tuple[RowRef, dict[str, Any]]] = []
        for key, rows in zip(keys_, self._partitions(keys_), strict=True):
            for ref, attrs in rows:
                if ref.sk == keys.ITEM_CARD:
                    carded.add(key.item_id)
                    doomed += [
                        decode_ref(encoded, self._tables)
                        for encoded in sorted(manifest_addresses(attrs.get(MANIFEST_ATTRIBUTE)))
                    ]
                    if attrs.get(WHOLE_ATTRIBUTE):
                        unsealed.append((ref, {n: v for n, v in attrs.items() if n != WHOLE_ATTRIBUTE}))
                else:
                    doomed.append(ref)
        self._writer.put(unsealed)  # before any row goes
        self._writer.delete(list(dict.fromkeys(doomed)))
        return carded

    def delete_cards(self, keys_: Sequence[ItemKey]) -> None:
        self._writer.delete([self._card(key) for key in keys_])

    def _card(self, key: ItemKey) -> RowRef:
        return RowRef(self._tables.lineage, keys.partition(key.context_id, key.item_id), keys.ITEM_CARD)

    def _partitions(self, keys_: Sequence[ItemKey]) -> list[list[tuple[RowRef, dict[str, Any]]]]:
        """Every lineage row under each item's key, whole: one Query per item, run concurrently so a
        chunk of deletes waits for a few rounds, not one per item."""

        def read(key: ItemKey) -> list[tuple[RowRef, dict[str, Any]]]:
            pk = keys.partition(key.context_id, key.item_id)
            return partition_rows(self._client, self._tables.lineage, pk)

        if not keys_:
            return []
        return in_parallel("dynamodb-read", PARTITION_READERS, read, keys_)


def _manifest_of(card: dict[str, Any] | None) -> set[str]:
    """The row addresses a stored card lists (as stored values)."""
    return manifest_addresses((card or {}).get(MANIFEST_ATTRIBUTE))
