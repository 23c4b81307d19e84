"""Bulk indexing for the loader: one ``_bulk`` request per chunk, every document routed by its context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .client import backend_failures

if TYPE_CHECKING:
    from opensearchpy import OpenSearch


def bulk_index(client: OpenSearch, alias: str, documents: Sequence[dict[str, Any]]) -> list[str]:
    """Index (create or replace) ``documents``; returns the ids OpenSearch did not accept."""
    if not documents:
        return []
    lines = []
    for doc in documents:
        lines.append(json.dumps({"index": {"_index": alias, "_id": doc["id"], "routing": doc["context_id"]}}))
        lines.append(json.dumps(doc))
    with backend_failures():
        response = client.bulk(body="\n".join(lines) + "\n")
    if not response.get("errors"):
        return []
    return [entry["index"]["_id"] for entry in response["items"] if entry["index"].get("error")]


def refresh(client: OpenSearch, alias: str) -> None:
    """Make everything indexed so far searchable (once at the end of a load, not per chunk)."""
    with backend_failures():
        client.indices.refresh(index=alias)
