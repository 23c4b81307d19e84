"""``LineageWriter`` on DynamoDB: the rows ``dynamodb_rows.rows_of`` derives for each item, written and
removed through ``DynamoDBBatchWriter``; each card keeps its item's manifest (the addresses of the other
rows), so a reload deletes exactly the rows a changed item no longer owns."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from . import dynamodb_keys as keys
from .dynamodb_rows import MANIFEST_ATTRIBUTE, TableNames, decode_ref, rows_of
from .dynamodb_writer import DynamoDBBatchWriter, partition_rows, read_attribute
from .row_ref import RowRef

if TYPE_CHECKING:
    from ..models.item import Item
    from ..ports import ItemKey

PARTITION_READERS = 8


class DynamoDBLineageWriter:
    def __init__(self, client: Any, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._writer = DynamoDBBatchWriter(client)

    def write(self, items: Sequence[Item]) -> set[str]:
        item_rows = [rows_of(item, self._tables) for item in items]
        cards = [rows.card[0] for rows in item_rows]
        old_manifests = read_attribute(self._client, cards, MANIFEST_ATTRIBUTE)
        stale: list[RowRef] = []
        for rows in item_rows:
            previous = set(old_manifests.get(rows.card[0]) or [])
            stale += [
                decode_ref(ref, self._tables) for ref in sorted(previous - set(rows.manifest(self._tables)))
            ]
        # The stale rows and the owned ones are distinct keys (stale: in the old manifest, not the new),
        # so they go in one round of batches; the cards, which list the rows, after them.
        self._writer.apply(puts=[row for rows in item_rows for row in rows.owned], deletes=stale)
        self._writer.put(
            (rows.card[0], {**rows.card[1], MANIFEST_ATTRIBUTE: rows.manifest(self._tables)})
            for rows in item_rows
        )
        return {rows.card[1]["id"] for rows in item_rows if rows.card[0] in old_manifests}

    def discard(self, items: Sequence[Item]) -> None:
        self._writer.delete(ref for item in items for ref in rows_of(item, self._tables).refs())

    def delete_links(self, keys_: Sequence[ItemKey]) -> set[str]:
        carded: set[str] = set()
        doomed: list[RowRef] = []
        for key, rows in zip(keys_, self._partitions(keys_), strict=True):
            for ref, manifest in rows:
                if ref.sk == keys.ITEM_CARD:
                    carded.add(key.item_id)
                    doomed += [decode_ref(encoded, self._tables) for encoded in manifest or []]
                else:
                    doomed.append(ref)
        self._writer.delete(list(dict.fromkeys(doomed)))
        return carded

    def delete_cards(self, keys_: Sequence[ItemKey]) -> None:
        self._writer.delete([self._card(key) for key in keys_])

    def _card(self, key: ItemKey) -> RowRef:
        return RowRef(self._tables.lineage, keys.partition(key.context_id, key.item_id), keys.ITEM_CARD)

    def _partitions(self, keys_: Sequence[ItemKey]) -> list[list[tuple[RowRef, Any]]]:
        """Every lineage row under each item's key, with its manifest: one Query per item, run
        concurrently so a chunk of deletes waits for a few rounds, not one per item."""

        def read(key: ItemKey) -> list[tuple[RowRef, Any]]:
            pk = keys.partition(key.context_id, key.item_id)
            return partition_rows(self._client, self._tables.lineage, pk, MANIFEST_ATTRIBUTE)

        if not keys_:
            return []
        with ThreadPoolExecutor(max_workers=min(PARTITION_READERS, len(keys_))) as pool:
            return list(pool.map(read, keys_))
