"""Helpers that read back what the loader wrote, for tests (snapshots and loader construction)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from retrieval_core.config import Settings
from retrieval_core.loading.loader import LoadReport

REPO = Path(__file__).resolve().parents[2]
SAMPLE_CORPUS = REPO / "dev" / "sample" / "corpus.jsonl"


def load_file(settings: Settings, path: Path, **options: Any) -> LoadReport:
    from retrieval_core.bootstrap import Container

    return Container(settings).loader.load_lines(path.read_text().splitlines(), **options)


def load_lines(settings: Settings, lines: list[str], **options: Any) -> LoadReport:
    from retrieval_core.bootstrap import Container

    return Container(settings).loader.load_lines(lines, **options)


def table_rows(dynamodb: Any, table: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for page in dynamodb.get_paginator("scan").paginate(TableName=table):
        rows += page["Items"]
    return sorted(rows, key=lambda r: (r["pk"]["S"], r.get("sk", {}).get("S", "")))


def edge_propositions(rows: list[dict[str, Any]]) -> set[str]:
    """The propositions that carry these edge rows, read from their keys as the graph reads them."""
    from retrieval_core.adapters.dynamodb_keys import edge_proposition

    return {edge_proposition(r["sk"]["S"], r["to"]["S"]) or "" for r in rows}


def index_documents(opensearch: Any, settings: Settings) -> list[dict[str, Any]]:
    """Every document of every context under ``settings``' index layout."""
    from retrieval_core.adapters.opensearch.client import IndexLayout

    aliases = IndexLayout.of(settings).alias_pattern
    opensearch.indices.refresh(index=aliases, allow_no_indices=True)
    response = opensearch.search(
        index=aliases,
        body={"query": {"match_all": {}}, "size": 10_000, "sort": [{"id": "asc"}]},
        allow_no_indices=True,
    )
    return [
        {"_index": h["_index"], "_id": h["_id"], "_routing": h.get("_routing"), **h["_source"]}
        for h in response["hits"]["hits"]
    ]


def snapshot(settings: Settings, opensearch: Any, dynamodb: Any) -> str:
    """Everything the loader owns, as one canonical string."""
    state = {
        "edges": table_rows(dynamodb, settings.edges_table),
        "lineage": table_rows(dynamodb, settings.lineage_table),
        # Which index holds a document is the layout's business (its name carries the scratch prefix);
        # what is in it, and its routing, is the loader's.
        "documents": [
            {k: v for k, v in doc.items() if k != "_index"} for doc in index_documents(opensearch, settings)
        ],
    }
    return json.dumps(state, sort_keys=True, default=_binary)


def _binary(value: object) -> str:
    """A binary attribute's bytes (a card's compressed manifest) in the snapshot, as hex."""
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"{type(value).__name__} in a snapshot")
