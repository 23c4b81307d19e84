"""Deletes against the real stack: a deleted item leaves no trace in any mode, path, lineage row or
explanation, deleting twice changes nothing, and deletes run in file order with the loads around them."""

from __future__ import annotations

import json
from typing import Any

from corpus_stack import graph_path, retrieve, why
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from stack_state import edge_propositions, index_documents, load_lines, snapshot, table_rows
from test_loader import proposition

ALL_STATUSES = "ACTIVE,SUPERSEDED,CONTRADICTED,STALE"
A, B, C = "acme:e/a", "acme:e/b", "acme:e/c"


def delete(item_id: str) -> str:
    return json.dumps({"op": "delete", "id": item_id})


def small_world() -> list[str]:
    return [
        json.dumps(
            {
                "id": "acme:doc-1",
                "context_id": "acme",
                "kind": "document",
                "text": "The zanzibar memo about payments.",
                "created_at": "2026-03-01T09:00:00Z",
            }
        ),
        proposition("acme:p-0", [A, B], status="SUPERSEDED"),
        proposition(
            "acme:p-1",
            [A, B],
            text="Zanzibar links a and b since March.",
            source_ids=["acme:doc-1"],
            supersedes=["acme:p-0"],
            contradicts=["acme:p-3"],
        ),
        proposition("acme:p-2", [B, C], source_ids=["acme:p-1"]),
        proposition("acme:p-3", [A, C]),
    ]


def mentions_of(rows: list[dict[str, Any]], item_id: str) -> list[dict[str, Any]]:
    return [row for row in rows if item_id in json.dumps(row)]


def test_a_deleted_item_leaves_no_trace(fresh_settings: Settings, opensearch: Any, dynamodb: Any) -> None:
    assert load_lines(fresh_settings, small_world()).ok
    report = load_lines(fresh_settings, [delete("acme:p-1")])
    assert (report.deleted, report.absent, report.unwritten, report.errors) == (1, 0, [], [])

    lineage = table_rows(dynamodb, fresh_settings.lineage_table)
    assert not [r for r in lineage if r["pk"]["S"] == "acme#acme:p-1"]  # card and links under its key
    assert not [r for r in lineage if r["sk"]["S"].endswith("#acme:p-1")]  # links it wrote elsewhere
    edges = table_rows(dynamodb, fresh_settings.edges_table)
    assert not mentions_of(edges, "acme:p-1")
    assert edge_propositions(edges) == {"acme:p-0", "acme:p-2", "acme:p-3"}
    assert "acme:p-1" not in [d["id"] for d in index_documents(opensearch, fresh_settings)]

    with bootstrap.use(bootstrap.Container(fresh_settings)):
        for body in (
            {"mode": "lexical", "text": "zanzibar"},
            {"mode": "vector", "text": "Zanzibar links a and b since March."},
            {"mode": "hybrid", "text": "zanzibar links a and b"},
            {"mode": "entity", "entity_id": A, "statuses": ALL_STATUSES.split(",")},
            {"mode": "graph_walk", "entity_id": A, "depth": 3, "statuses": ALL_STATUSES.split(",")},
            {"mode": "temporal", "window": {"from": "2026-01-01T00:00:00Z", "to": "2026-12-31T00:00:00Z"}},
        ):
            status, found = retrieve("acme", body | {"top_k": 50})
            assert status == 200, found
            assert "acme:p-1" not in [hit["id"] for hit in found["hits"]], body["mode"]
            assert found["hits"] or body["mode"] == "vector", body["mode"]
        _, path = graph_path("acme", **{"from": A, "to": B, "statuses": ALL_STATUSES})
        assert path["found"]
        assert {e["proposition_id"] for p in path["paths"] for e in p["edges"]} == {"acme:p-0"}
        gone = why("acme", "acme:p-1")
        never = why("acme", "acme:p-9")
        assert gone[0] == never[0] == 404 and gone[1] == never[1]
        _, older = why("acme", "acme:p-0")
        assert older["superseded_by"] == []


def test_deleting_twice_changes_nothing_and_reports_the_id_absent(
    fresh_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    assert load_lines(fresh_settings, small_world()).ok
    assert load_lines(fresh_settings, [delete("acme:p-1"), delete("acme:p-2")]).deleted == 2
    after = snapshot(fresh_settings, opensearch, dynamodb)
    again = load_lines(fresh_settings, [delete("acme:p-1"), delete("acme:p-2")])
    assert (again.deleted, again.absent, again.ok) == (0, 2, True)
    assert snapshot(fresh_settings, opensearch, dynamodb) == after


def test_lines_apply_in_file_order_and_a_foreign_delete_is_rejected(
    fresh_settings: Settings, opensearch: Any
) -> None:
    lines = [
        proposition("acme:p-1", [A, B]),
        delete("acme:p-1"),
        proposition("acme:p-2", [A, B]),
        delete("acme:p-2"),
        proposition("acme:p-2", [B, C]),
        delete("globex:p-1"),
        json.dumps({"op": "delete", "id": "acme:p-1", "text": "x"}),
        json.dumps({"op": "rename", "id": "acme:p-1"}),
    ]
    report = load_lines(fresh_settings, lines, context_id="acme")
    assert [(e.line, e.field) for e in report.errors] == [(6, "id"), (7, "text"), (8, "op")]
    # p-1 is loaded then deleted; p-2's last line (a load) wins over its earlier delete.
    assert [d["id"] for d in index_documents(opensearch, fresh_settings)] == ["acme:p-2"]
    assert (report.loaded, report.deleted) == (1, 0)
