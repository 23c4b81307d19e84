"""The DynamoDB read adapters against moto in server mode, reading rows written the way the loader writes
them (``adapters.dynamodb_rows.rows_of`` through the batch writer) plus hand-planted corrupted rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from retrieval_core.adapters import dynamodb_keys as keys
from retrieval_core.adapters.dynamodb_edges import DynamoDBEdges
from retrieval_core.adapters.dynamodb_lineage import DynamoDBLineage
from retrieval_core.adapters.dynamodb_rows import MANIFEST_ATTRIBUTE, TableNames, rows_of
from retrieval_core.adapters.dynamodb_writer import DynamoDBBatchWriter
from retrieval_core.config import Settings
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import BackendUnavailableError
from retrieval_core.graph.walk import walk
from retrieval_core.models.item import Item
from retrieval_core.models.vocabulary import Kind, Status

CREATED = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _item(ctx: str, item_id: str, entities: tuple[str, ...] = (), **fields: Any) -> Item:
    return Item(
        id=item_id,
        context_id=ctx,
        kind=fields.pop("kind", Kind.PROPOSITION),
        text=f"text of {item_id}",
        mentions=[{"entity_id": e, "name": e, "type": "thing"} for e in entities],
        created_at=CREATED,
        **fields,
    )


def _load(settings: Settings, dynamodb: Any, items: list[Item]) -> None:
    """Write every row the loader writes for ``items``, card last with its manifest."""
    tables = TableNames(edges=settings.edges_table, lineage=settings.lineage_table)
    writer = DynamoDBBatchWriter(dynamodb)
    all_rows = [rows_of(item, tables) for item in items]
    writer.put(row for rows in all_rows for row in rows.owned)
    writer.put((rows.card[0], {**rows.card[1], MANIFEST_ATTRIBUTE: rows.manifest()}) for rows in all_rows)


@pytest.fixture
def edges(fresh_settings: Settings) -> DynamoDBEdges:
    return DynamoDBEdges(fresh_settings)


@pytest.fixture
def lineage(fresh_settings: Settings) -> DynamoDBLineage:
    return DynamoDBLineage(fresh_settings)


def test_neighbours_of_a_frontier_in_one_call(
    fresh_settings: Settings, dynamodb: Any, edges: DynamoDBEdges
) -> None:
    _load(
        fresh_settings,
        dynamodb,
        [
            _item("acme", "acme:p1", ("acme:a", "acme:b"), confidence=0.8),
            _item("acme", "acme:p2", ("acme:b", "acme:c")),
            _item("acme", "acme:p3", ("acme:a", "acme:c"), status=Status.SUPERSEDED),
            _item("globex", "globex:p1", ("globex:a", "globex:z")),
        ],
    )

    found = edges.neighbours("acme", ["acme:a", "acme:b", "acme:nobody"], [Status.ACTIVE])

    assert set(found) == {"acme:a", "acme:b", "acme:nobody"}
    [a_b] = found["acme:a"]
    assert (a_b.from_id, a_b.to_id, a_b.proposition_id, a_b.status) == (
        "acme:a",
        "acme:b",
        "acme:p1",
        "ACTIVE",
    )
    assert type(a_b.confidence) is float and a_b.confidence == 0.8
    assert a_b.created_at == "2024-05-01T12:00:00Z"
    assert sorted((e.to_id, e.proposition_id, e.confidence) for e in found["acme:b"]) == [
        ("acme:a", "acme:p1", 0.8),
        ("acme:c", "acme:p2", None),
    ]
    assert found["acme:nobody"] == []
    assert edges.backend_calls == 3

    with_superseded = edges.neighbours("acme", ["acme:a"], [Status.ACTIVE, Status.SUPERSEDED])
    assert sorted(e.proposition_id for e in with_superseded["acme:a"]) == ["acme:p1", "acme:p3"]


def test_neighbours_never_cross_contexts(
    fresh_settings: Settings, dynamodb: Any, edges: DynamoDBEdges
) -> None:
    _load(fresh_settings, dynamodb, [_item("globex", "globex:p1", ("globex:a", "globex:z"))])
    # A row on acme's partition claiming to belong to globex (corruption) must be filtered in the query.
    dynamodb.put_item(
        TableName=fresh_settings.edges_table,
        Item={
            "pk": {"S": keys.partition("acme", "globex:a")},
            "sk": {"S": keys.edge_sort_key("globex:z", "globex:p1")},
            "context_id": {"S": "globex"},
            "from": {"S": "globex:a"},
            "to": {"S": "globex:z"},
            "proposition_id": {"S": "globex:p1"},
            "status": {"S": "ACTIVE"},
            "created_at": {"S": "2024-05-01T12:00:00Z"},
        },
    )

    assert edges.neighbours("acme", ["globex:a"], [Status.ACTIVE]) == {"globex:a": []}
    assert len(edges.neighbours("globex", ["globex:a"], [Status.ACTIVE])["globex:a"]) == 1


def test_a_partition_larger_than_one_page_is_read_whole(
    fresh_settings: Settings, dynamodb: Any, edges: DynamoDBEdges
) -> None:
    padding = "x" * 300_000  # four such rows exceed DynamoDB's 1 MB page
    for i in range(4):
        dynamodb.put_item(
            TableName=fresh_settings.edges_table,
            Item={
                "pk": {"S": keys.partition("acme", "acme:hub")},
                "sk": {"S": keys.edge_sort_key(f"acme:n{i}", f"acme:p{i}")},
                "context_id": {"S": "acme"},
                "from": {"S": "acme:hub"},
                "to": {"S": f"acme:n{i}"},
                "proposition_id": {"S": f"acme:p{i}"},
                "status": {"S": "ACTIVE"},
                "confidence": {"N": "0.5"},
                "created_at": {"S": "2024-05-01T12:00:00Z"},
                "padding": {"S": padding},
            },
        )

    found = edges.neighbours("acme", ["acme:hub"], [Status.ACTIVE])

    assert [e.to_id for e in found["acme:hub"]] == [f"acme:n{i}" for i in range(4)]
    assert edges.backend_calls >= 2


def test_walk_over_dynamodb_makes_one_port_call_per_level(
    fresh_settings: Settings, dynamodb: Any, edges: DynamoDBEdges
) -> None:
    items = [_item("acme", f"acme:s{i}", ("acme:root", f"acme:n{i}")) for i in range(12)]
    items += [_item("acme", f"acme:t{i}", (f"acme:n{i}", f"acme:m{i}")) for i in range(12)]
    _load(fresh_settings, dynamodb, items)

    steps = walk(edges, CallerContext("acme"), ["acme:root"], depth=2, statuses=[Status.ACTIVE])

    assert [s.hop for s in steps] == [1] * 12 + [2] * 12
    assert {s.edge.proposition_id for s in steps if s.hop == 2} == {f"acme:t{i}" for i in range(12)}
    assert edges.backend_calls == 1 + 12  # one Query per expanded entity, in two concurrent rounds


def test_item_with_links_reads_card_and_reverse_links(
    fresh_settings: Settings, dynamodb: Any, lineage: DynamoDBLineage
) -> None:
    chunk = {"chunk_id": "acme:doc#1", "uri": "s3://b/doc.pdf", "start": 3, "end": 90}
    _load(
        fresh_settings,
        dynamodb,
        [
            _item("acme", "acme:src", kind=Kind.DOCUMENT, grounding=[chunk], confidence=0.25),
            _item("acme", "acme:fact", source_ids=["acme:src"], contradicts=["acme:src"]),
            _item("acme", "acme:newer", supersedes=["acme:src"]),
            _item("globex", "globex:x", source_ids=["globex:src"]),
        ],
    )

    found = lineage.item_with_links("acme", "acme:src")

    assert found is not None
    card, links = found
    assert (card.id, card.kind, card.status, card.created_at) == (
        "acme:src",
        Kind.DOCUMENT,
        Status.ACTIVE,
        "2024-05-01T12:00:00Z",
    )
    assert type(card.confidence) is float and card.confidence == 0.25
    assert card.grounding == [chunk] and all(type(card.grounding[0][k]) is int for k in ("start", "end"))
    assert links.derived_to == ["acme:fact"]
    assert links.superseded_by == ["acme:newer"]
    assert links.contradicted_by == ["acme:fact"]
    fact, _ = lineage.item_with_links("acme", "acme:fact") or (None, None)
    assert fact is not None and fact.source_ids == ["acme:src"] and fact.contradicts == ["acme:src"]
    assert lineage.item_with_links("acme", "globex:x") is None
    assert lineage.item_with_links("acme", "acme:missing") is None
    assert lineage.backend_calls == 4


def test_cards_reads_many_items_in_batches_and_only_the_callers(
    fresh_settings: Settings, dynamodb: Any, lineage: DynamoDBLineage
) -> None:
    _load(fresh_settings, dynamodb, [_item("acme", f"acme:i{i}") for i in range(130)])
    _load(fresh_settings, dynamodb, [_item("globex", "globex:i0")])
    wanted = [f"acme:i{i}" for i in range(130)] + ["acme:missing", "globex:i0", "acme:i0"]

    cards = lineage.cards("acme", wanted)

    assert sorted(cards) == sorted(f"acme:i{i}" for i in range(130))
    assert all(card.id == item_id for item_id, card in cards.items())
    assert lineage.backend_calls == 2  # 132 distinct keys: one BatchGetItem per 100
    assert lineage.cards("globex", ["acme:i1"]) == {}


def test_a_missing_table_is_a_backend_failure_that_names_nothing(
    fresh_settings: Settings, dynamodb: Any
) -> None:
    broken = fresh_settings.model_copy(
        update={"edges_table": "no-such-edges", "lineage_table": "no-such-lineage"}
    )

    with pytest.raises(BackendUnavailableError) as on_edges:
        DynamoDBEdges(broken, client=dynamodb).neighbours("acme", ["acme:a"], [Status.ACTIVE])
    with pytest.raises(BackendUnavailableError) as on_cards:
        DynamoDBLineage(broken, client=dynamodb).cards("acme", ["acme:a"])
    with pytest.raises(BackendUnavailableError):
        DynamoDBLineage(broken, client=dynamodb).item_with_links("acme", "acme:a")

    for error in (on_edges.value, on_cards.value):
        assert "no-such" not in str(error.to_body()) and status_of(error) == 503
