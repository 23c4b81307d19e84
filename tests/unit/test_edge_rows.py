"""An edge row stores its neighbour, status, confidence and time; its start and its proposition are read
from its key (``dynamodb_keys``). Rows written before, which also stored ``from`` and
``proposition_id``, read the same; a row whose key does not name its neighbour is skipped."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from retrieval_core.adapters import dynamodb_keys as keys
from retrieval_core.adapters.dynamodb_edges import DynamoDBEdges
from retrieval_core.adapters.dynamodb_rows import TableNames, rows_of
from retrieval_core.adapters.dynamodb_writer import DynamoDBBatchWriter
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_core.models.vocabulary import Status

TABLES = TableNames(edges="edges", lineage="lineage")
IDS = st.text(alphabet=st.sampled_from("ab#:/é"), min_size=1, max_size=12)


@given(neighbour=IDS, proposition=IDS)
def test_a_sort_key_gives_back_its_proposition_whatever_the_ids_hold(
    neighbour: str, proposition: str
) -> None:
    assert keys.edge_proposition(keys.edge_sort_key(neighbour, proposition), neighbour) == proposition


def test_a_sort_key_of_another_neighbour_gives_none() -> None:
    assert keys.edge_proposition(keys.edge_sort_key("acme:x", "acme:p"), "acme:y") is None
    assert keys.edge_proposition("acme:x#", "acme:x") is None


class PartitionClient:
    """``query`` over stored rows by partition, every attribute returned (projection ignored)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def query(self, **request: Any) -> dict[str, Any]:
        pk = request["ExpressionAttributeValues"][":pk"]["S"]
        return {"Items": [row for row in self.rows if row["pk"]["S"] == pk]}


def _chunk() -> Item:
    ident = "acme:doc/a#b.md#0001"
    return Item.model_validate(
        {
            "context_id": "acme",
            "id": ident,
            "kind": "document",
            "text": "Names two pages.",
            "created_at": "2026-03-02T09:00:00Z",
            "grounding": [{"chunk_id": ident, "uri": "s3://b/contexts/acme/a#b.md", "start": 0, "end": 16}],
            "mentions": [
                {"entity_id": "acme:page/one#1", "name": "One", "type": "page"},
                {"entity_id": "acme:page/two", "name": "Two", "type": "page"},
            ],
        }
    )


def _stored(item: Item) -> list[dict[str, Any]]:
    writer = DynamoDBBatchWriter(client=None)
    rows = rows_of(item, TABLES).owned
    return [{**ref.key(), **writer.attributes(attrs)} for ref, attrs in rows if ref.table == TABLES.edges]


def _neighbours(rows: list[dict[str, Any]], entity: str) -> list[dict[str, Any]]:
    edges = DynamoDBEdges(Settings(), client=PartitionClient(rows), workers=1)
    found = edges.neighbours("acme", [entity], [Status.ACTIVE])[entity]
    return [edge.model_dump(by_alias=True) for edge in found]


def test_an_edge_row_stores_neither_its_start_nor_its_proposition() -> None:
    rows = _stored(_chunk())
    assert len(rows) == 2
    assert all(set(row) == {"pk", "sk", "context_id", "to", "status", "created_at"} for row in rows)


def test_edges_read_from_the_key_are_what_the_item_says() -> None:
    rows = _stored(_chunk())
    expected = {"proposition_id": "acme:doc/a#b.md#0001", "status": "ACTIVE", "confidence": None}
    expected |= {"created_at": "2026-03-02T09:00:00Z"}
    assert _neighbours(rows, "acme:page/one#1") == [
        {"from": "acme:page/one#1", "to": "acme:page/two"} | expected
    ]
    assert _neighbours(rows, "acme:page/two") == [
        {"from": "acme:page/two", "to": "acme:page/one#1"} | expected
    ]


def test_rows_written_before_read_the_same_and_a_malformed_row_is_skipped() -> None:
    rows = _stored(_chunk())
    before = [
        row | {"from": {"S": row["pk"]["S"].removeprefix("acme#")}, "proposition_id": {"S": _chunk().id}}
        for row in rows
    ]
    assert _neighbours(before, "acme:page/two") == _neighbours(rows, "acme:page/two")
    malformed = [row | {"to": {"S": "acme:page/other"}} for row in rows]
    assert _neighbours(malformed, "acme:page/two") == []
