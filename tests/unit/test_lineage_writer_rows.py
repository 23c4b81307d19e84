"""Issue 66: the lineage writer writes only what changed. A back-link adds one name to a chunk already
written; its card is otherwise the same, so the reload puts the new name's edge rows and the card, not
every edge again. Whatever removes rows unseals the card first, so a kill midway never leaves a card
vouching for a row that is gone (the next write puts the rows whole)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from retrieval_core.adapters.dynamodb_lineage_writer import WHOLE_ATTRIBUTE, DynamoDBLineageWriter
from retrieval_core.adapters.dynamodb_rows import (
    MANIFEST_ATTRIBUTE,
    TableNames,
    decode_ref,
    encode_ref,
    manifest_addresses,
    rows_of,
)
from retrieval_core.adapters.row_ref import RowRef
from retrieval_core.models.item import Item
from retrieval_core.ports import ItemKey

TABLES = TableNames(edges="edges", lineage="lineage")


class MemoryDynamoDB:
    """The three calls the writer makes, over dicts of stored attribute values, counting each row
    written or deleted; ``fail_on`` raises at the given ``batch_write_item`` call (a kill there)."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[tuple[str, str], dict[str, Any]]] = {"edges": {}, "lineage": {}}
        self.puts = self.deletes = self.write_calls = self.queries = 0
        self.fail_on: int | None = None
        self._lock = threading.Lock()

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        found = {
            table: [row for key in request["Keys"] if (row := self.tables[table].get(_key(key)))]
            for table, request in RequestItems.items()
        }
        return {"Responses": found}

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        with self._lock:  # the writer sends a few batches at once
            self.write_calls += 1
            if self.write_calls == self.fail_on:
                raise KillError
            self._apply(RequestItems)
        return {"UnprocessedItems": {}}

    def _apply(self, RequestItems: dict[str, list[dict[str, Any]]]) -> None:
        for table, requests in RequestItems.items():
            for request in requests:
                if "PutRequest" in request:
                    self.puts += 1
                    item = request["PutRequest"]["Item"]
                    self.tables[table][_key(item)] = item
                else:
                    self.deletes += 1
                    self.tables[table].pop(_key(request["DeleteRequest"]["Key"]), None)

    def query(self, TableName: str, ExpressionAttributeValues: dict[str, Any], **_: Any) -> dict[str, Any]:
        self.queries += 1
        pk = ExpressionAttributeValues[":pk"]["S"]
        return {"Items": [row for (p, _s), row in sorted(self.tables[TableName].items()) if p == pk]}

    def counted(self) -> tuple[int, int]:
        counts = (self.puts, self.deletes)
        self.puts = self.deletes = 0
        return counts

    def edges(self) -> set[tuple[str, str]]:
        return set(self.tables["edges"])

    def card(self, item_id: str) -> dict[str, Any]:
        return next(row for (pk, sk), row in self.tables["lineage"].items() if pk.endswith(item_id))


class KillError(Exception):
    pass


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return row["pk"]["S"], row["sk"]["S"]


def chunk(names: int, *, status: str = "ACTIVE", first: int = 0) -> Item:
    """A chunk of a file naming ``names`` pages (``first`` on), as ``chunk_items`` and the back-links
    build one: its own file's mention first."""
    ident = "acme:doc/a.md#0000"
    mentions = [{"entity_id": "acme:doc/a.md", "name": "a.md", "type": "file"}]
    mentions += [
        {"entity_id": f"acme:page/{n}", "name": f"Page {n}", "type": "page"} for n in range(first, names)
    ]
    return Item.model_validate(
        {
            "context_id": "acme",
            "id": ident,
            "kind": "document",
            "text": "Pages named here.",
            "status": status,
            "created_at": "2026-03-02T09:00:00Z",
            "grounding": [{"chunk_id": ident, "uri": "s3://b/contexts/acme/a.md", "start": 0, "end": 17}],
            "mentions": mentions,
        }
    )


@pytest.fixture
def dynamodb() -> MemoryDynamoDB:
    return MemoryDynamoDB()


@pytest.fixture
def writer(dynamodb: MemoryDynamoDB) -> DynamoDBLineageWriter:
    return DynamoDBLineageWriter(dynamodb, TABLES)


def test_a_back_link_puts_the_new_names_edges_and_the_card_only(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    writer.write([chunk(6)])
    assert dynamodb.counted() == (6 * 5 + 1, 0)
    assert writer.write([chunk(7)]) == {"acme:doc/a.md#0000"}
    assert dynamodb.counted() == (2 * 6 + 1, 0)  # was 7 * 6 + 1: every edge again for one name
    whole = MemoryDynamoDB()
    DynamoDBLineageWriter(whole, TABLES).write([chunk(7)])
    assert dynamodb.tables == whole.tables


def test_an_unchanged_item_writes_nothing_and_a_changed_card_writes_every_row(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    writer.write([chunk(5)])
    dynamodb.counted()
    writer.write([chunk(5)])
    assert dynamodb.counted() == (0, 0)
    writer.write([chunk(5, status="SUPERSEDED")])  # every edge row carries the status
    assert dynamodb.counted() == (5 * 4 + 1, 0)
    assert {row["status"]["S"] for row in dynamodb.tables["edges"].values()} == {"SUPERSEDED"}


def test_a_card_written_before_the_seal_is_written_whole_once(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    writer.write([chunk(5)])
    del dynamodb.card("#0000")[WHOLE_ATTRIBUTE]
    dynamodb.counted()
    writer.write([chunk(6)])
    assert dynamodb.counted() == (6 * 5 + 1, 0)
    assert dynamodb.card("#0000")[WHOLE_ATTRIBUTE] == {"BOOL": True}


@pytest.mark.parametrize("removal", ["delete_links", "discard"])
def test_rows_removed_under_a_card_are_written_again_after_a_kill(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter, removal: str
) -> None:
    writer.write([chunk(8)])
    remove: Callable[[], object] = {
        "delete_links": lambda: writer.delete_links([ItemKey("acme", "acme:doc/a.md#0000")]),
        "discard": lambda: writer.discard([chunk(8)]),
    }[removal]
    dynamodb.fail_on = dynamodb.write_calls + 3  # killed after the card's unsealing and a batch of rows
    with pytest.raises(KillError):
        remove()
    assert 0 < len(dynamodb.edges()) < 8 * 7
    dynamodb.fail_on = None
    writer.write([chunk(8)])
    assert len(dynamodb.edges()) == 8 * 7


def test_a_kill_after_a_reload_deletes_rows_leaves_a_card_that_vouches_for_none(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    writer.write([chunk(5)])
    dynamodb.fail_on = dynamodb.write_calls + 3  # puts, deletes, then killed before the card
    with pytest.raises(KillError):
        writer.write([chunk(5, first=1)])  # page 0's edges go
    card = dynamodb.card("#0000")
    assert WHOLE_ATTRIBUTE not in card and len(manifest_addresses(card[MANIFEST_ATTRIBUTE])) == 5 * 4
    dynamodb.fail_on = None
    writer.write([chunk(5)])  # page 0 back: its edges were deleted, so they are put again
    assert len(dynamodb.edges()) == 5 * 4 and dynamodb.card("#0000")[WHOLE_ATTRIBUTE] == {"BOOL": True}


def test_a_card_stores_its_manifest_as_one_compressed_value(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    """A chunk naming eight pages owns 56 edge rows: listed one attribute value each, its manifest was
    most of its card, and every reload reads the card whole; stored as one value, a fraction of it."""
    writer.write([chunk(8)])
    stored = dynamodb.card("#0000")[MANIFEST_ATTRIBUTE]
    listed = manifest_addresses(stored)
    assert set(stored) == {"B"} and len(stored["B"]) * 4 < sum(map(len, listed))
    assert {(ref.pk, ref.sk) for ref in (decode_ref(a, TABLES) for a in listed)} == dynamodb.edges()
    assert len(listed) == 8 * 7


def test_a_manifest_stored_as_a_list_is_still_read(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    """Cards written before the manifest was compressed list their rows as strings: a reload still
    removes the rows they list and no longer owns, and a delete still removes every one."""
    writer.write([chunk(5)])
    card = dynamodb.card("#0000")
    card[MANIFEST_ATTRIBUTE] = {
        "L": [{"S": address} for address in sorted(manifest_addresses(card[MANIFEST_ATTRIBUTE]))]
    }
    dynamodb.counted()
    writer.write([chunk(6)])  # sealed and the same card: only the new name's edges and the card
    assert dynamodb.counted() == (2 * 5 + 1, 0)
    card = dynamodb.card("#0000")
    card[MANIFEST_ATTRIBUTE] = {
        "L": [{"S": address} for address in sorted(manifest_addresses(card[MANIFEST_ATTRIBUTE]))]
    }
    writer.write([chunk(6, first=1)])  # page 0 no longer named: its 2 * 5 edges go
    assert len(dynamodb.edges()) == 5 * 4
    card = dynamodb.card("#0000")
    card[MANIFEST_ATTRIBUTE] = {
        "L": [{"S": address} for address in sorted(manifest_addresses(card[MANIFEST_ATTRIBUTE]))]
    }
    assert writer.delete_links([ItemKey("acme", "acme:doc/a.md#0000")]) == {"acme:doc/a.md#0000"}
    assert dynamodb.edges() == set()


def test_writes_and_reloads_read_cards_by_key_and_never_query(
    dynamodb: MemoryDynamoDB, writer: DynamoDBLineageWriter
) -> None:
    """A file's chunks and every back-link's reload run on each file of a sync: the cards they need are
    read by key (``BatchGetItem``). A ``Query`` costs moto's server the whole table (it walks and sorts
    every item per call), so one per file made a sync quadratic there; only a delete reads a partition."""
    writer.write([chunk(3)])
    writer.write([chunk(9)])  # a reload that adds names past the pairing cap
    writer.write([chunk(9, first=2)])  # and one that drops rows
    writer.discard([chunk(9, first=2)])
    assert dynamodb.queries == 0
    writer.delete_links([ItemKey("acme", "acme:doc/a.md#0000")])
    assert dynamodb.queries == 1


@pytest.mark.parametrize(
    "ref",
    [
        RowRef("edges", "acme#acme:page/1", "acme:page/2#acme:doc/a.md#0000"),
        RowRef("lineage", 'acme#"quoted"\\back\tslash', "card"),
        RowRef("lineage", "acme#caf\u00e9 \u2013 \U0001d11e", None),
    ],
    ids=["edge", "escaped", "non-ascii without sort key"],
)
def test_an_address_is_spelled_as_stored_manifests_spell_it(ref: RowRef) -> None:
    """Manifests written before hold ``json.dumps`` of each address: a reload compares against them."""
    table = "E" if ref.table == TABLES.edges else "L"
    assert encode_ref(ref, TABLES) == json.dumps([table, ref.pk, ref.sk])
    assert decode_ref(encode_ref(ref, TABLES), TABLES) == ref


def test_an_items_edge_rows_share_what_they_copy_and_list_their_addresses_in_order() -> None:
    rows = rows_of(chunk(4), TABLES)
    assert len(rows.owned) == 4 * 3
    assert rows.addresses == [encode_ref(ref, TABLES) for ref, _ in rows.owned]
    assert rows.manifest() == sorted(rows.addresses)
    shared = {(attrs["status"], attrs["created_at"]) for _, attrs in rows.owned}
    assert (
        shared
        == {("ACTIVE", "2026-03-02T09:00:00Z")}
        == {(rows.card[1]["status"], rows.card[1]["created_at"])}
    )
