"""The loader against the real stack: idempotence, stale-row removal, bad lines, isolation of keys."""

from __future__ import annotations

import json
from typing import Any

from retrieval_core.adapters.dynamodb_rows import TableNames
from retrieval_core.config import Settings
from retrieval_core.loading.loader import Loader
from stack_state import SAMPLE_CORPUS, index_documents, load_file, load_lines, snapshot, table_rows


def proposition(item_id: str, entities: list[str], **extra: Any) -> str:
    ctx = item_id.split(":")[0]
    return json.dumps(
        {
            "id": item_id,
            "context_id": ctx,
            "kind": "proposition",
            "text": f"{item_id} links {' and '.join(entities)}.",
            "created_at": "2026-03-02T09:00:00Z",
            "mentions": [{"entity_id": e, "name": e.split("/")[-1], "type": "Thing"} for e in entities],
        }
        | extra
    )


def test_loading_the_sample_corpus_twice_yields_identical_state(
    fresh_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    first = load_file(fresh_settings, SAMPLE_CORPUS)
    assert first.ok, first.summary()
    assert first.loaded >= 300
    before = snapshot(fresh_settings, opensearch, dynamodb)
    second = load_file(fresh_settings, SAMPLE_CORPUS)
    assert second.ok and second.loaded == first.loaded
    assert snapshot(fresh_settings, opensearch, dynamodb) == before
    assert len(table_rows(dynamodb, fresh_settings.edges_table)) > 0


def test_changing_mentions_and_reloading_removes_old_edges(fresh_settings: Settings, dynamodb: Any) -> None:
    a, b, c = "acme:e/a", "acme:e/b", "acme:e/c"
    assert load_lines(fresh_settings, [proposition("acme:p-1", [a, b], source_ids=["acme:p-0"])]).ok
    edges = {(r["pk"]["S"], r["sk"]["S"]) for r in table_rows(dynamodb, fresh_settings.edges_table)}
    assert edges == {("acme#acme:e/a", "acme:e/b#acme:p-1"), ("acme#acme:e/b", "acme:e/a#acme:p-1")}

    assert load_lines(fresh_settings, [proposition("acme:p-1", [a, c])]).ok
    edges = {(r["pk"]["S"], r["sk"]["S"]) for r in table_rows(dynamodb, fresh_settings.edges_table)}
    assert edges == {("acme#acme:e/a", "acme:e/c#acme:p-1"), ("acme#acme:e/c", "acme:e/a#acme:p-1")}
    lineage = {(r["pk"]["S"], r["sk"]["S"]) for r in table_rows(dynamodb, fresh_settings.lineage_table)}
    assert ("acme#acme:p-0", "DERIVED_TO#acme:p-1") not in lineage  # the dropped source link went too
    assert ("acme#acme:p-1", "ITEM") in lineage


def test_a_bad_line_is_reported_by_number_and_every_good_line_loads(
    fresh_settings: Settings, opensearch: Any
) -> None:
    lines = [
        proposition("acme:p-1", ["acme:e/a", "acme:e/b"]),
        '{"id": "acme:p-2", "context_id": "acme", "kind": "proposition"}',
        "not json at all",
        proposition("acme:p-3", ["acme:e/b", "acme:e/c"]),
    ]
    report = load_lines(fresh_settings, lines)
    assert not report.ok
    assert report.loaded == 2
    assert [(e.line, e.field) for e in report.errors] == [(2, "text"), (3, "(line)")]
    ids = [d["id"] for d in index_documents(opensearch, fresh_settings)]
    assert ids == ["acme:p-1", "acme:p-3"]


def test_a_cross_context_link_is_rejected_and_nothing_of_it_is_written(
    fresh_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    report = load_lines(
        fresh_settings,
        [proposition("acme:p-1", ["acme:e/a", "globex:e/b"]), proposition("acme:p-2", ["acme:e/a"])],
    )
    assert [(e.line, e.field) for e in report.errors] == [(1, "mentions")]
    assert [d["id"] for d in index_documents(opensearch, fresh_settings)] == ["acme:p-2"]
    assert table_rows(dynamodb, fresh_settings.edges_table) == []


def test_every_document_and_key_carries_its_context(
    fresh_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    assert load_file(fresh_settings, SAMPLE_CORPUS).ok
    from retrieval_core.adapters.opensearch.client import IndexLayout

    layout = IndexLayout.of(fresh_settings)
    documents = index_documents(opensearch, fresh_settings)
    assert {d["context_id"] for d in documents} == {"acme", "globex"}
    for doc in documents:
        assert doc["_index"] == layout.index(doc["context_id"])  # silo: each context has its own index
        assert doc["_routing"] == doc["context_id"]
        assert doc["id"].startswith(doc["context_id"] + ":")
        assert all(e.startswith(doc["context_id"] + ":") for e in doc["entity_ids"])
    for table in (fresh_settings.edges_table, fresh_settings.lineage_table):
        for row in table_rows(dynamodb, table):
            ctx = row["context_id"]["S"]
            assert row["pk"]["S"].startswith(f"{ctx}#{ctx}:")


def test_a_failed_write_names_the_items_and_a_rerun_repairs(
    fresh_settings: Settings, opensearch: Any, dynamodb: Any
) -> None:
    from retrieval_core.adapters.dynamodb_client import dynamodb_client
    from retrieval_core.adapters.dynamodb_lineage_writer import DynamoDBLineageWriter
    from retrieval_core.adapters.opensearch.writer import OpenSearchItemWriter
    from retrieval_core.embedding.factory import embedder_from_settings

    lines = [
        proposition("acme:p-1", ["acme:e/a", "acme:e/b"]),
        proposition("acme:p-2", ["acme:e/b", "acme:e/c"]),
    ]
    from retrieval_core.bootstrap import Container

    embedder = embedder_from_settings(fresh_settings)
    tables = TableNames(edges=fresh_settings.edges_table, lineage="no-such-table")
    broken = Loader(
        items=OpenSearchItemWriter(Container(fresh_settings).indices),
        lineage=DynamoDBLineageWriter(dynamodb_client(fresh_settings), tables),
        embedder=embedder,
    )
    report = broken.load_lines(lines)
    assert sorted(report.unwritten) == ["acme:p-1", "acme:p-2"] and report.loaded == 0
    assert load_lines(fresh_settings, lines).ok
    repaired = snapshot(fresh_settings, opensearch, dynamodb)
    assert load_lines(fresh_settings, lines).ok
    assert snapshot(fresh_settings, opensearch, dynamodb) == repaired
    assert [d["id"] for d in index_documents(opensearch, fresh_settings)] == [
        "acme:p-1",
        "acme:p-2",
    ]
