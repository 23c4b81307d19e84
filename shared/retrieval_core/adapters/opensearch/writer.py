"""Bulk indexing for the loader: one ``_bulk`` request per chunk, every document sent to its context's
alias (``layout.IndexLayout``) and routed by its context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .client import backend_failures
from .layout import IndexLayout

if TYPE_CHECKING:
    from opensearchpy import OpenSearch


BULK_TIMEOUT_SECONDS = 120.0
"""A load has no caller waiting on a deadline: a cold node indexing a chunk's vectors (HNSW graphs) can
take tens of seconds on small hardware, and a bulk cut off by a short timeout may still be applied,
leaving the load unable to say what it wrote. The ingest function's 15 minutes hold several of these."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A document OpenSearch did not index. ``final``: it refused the document itself (a 4xx other than
    429: a mapping conflict, a field limit), so sending it again gives the same answer."""

    item_id: str
    final: bool
    reason: str


def bulk_index(client: OpenSearch, layout: IndexLayout, documents: Sequence[dict[str, Any]]) -> list[Refusal]:
    """Index (create or replace) ``documents``; returns those OpenSearch did not accept."""
    if not documents:
        return []
    lines = []
    for doc in documents:
        context_id = doc["context_id"]
        action = {"_index": layout.alias(context_id), "_id": doc["id"], "routing": context_id}
        lines.append(json.dumps({"index": action}))
        lines.append(json.dumps(doc))
    with backend_failures():
        response = client.bulk(body="\n".join(lines) + "\n", request_timeout=BULK_TIMEOUT_SECONDS)
    if not response.get("errors"):
        return []
    return [_refusal(entry["index"]) for entry in response["items"] if entry["index"].get("error")]


def _refusal(result: dict[str, Any]) -> Refusal:
    status = int(result.get("status", 500))
    final = 400 <= status < 500 and status != 429
    # Only the error's type: its reason text can name the index (and, in the pool, what others hold).
    kind = str(result["error"].get("type", "error")) if isinstance(result["error"], dict) else "error"
    return Refusal(result["_id"], final, f"the index refused the item ({kind})")


def bulk_delete(client: OpenSearch, layout: IndexLayout, items: Sequence[tuple[str, str]]) -> list[str]:
    """Delete the documents of ``(item_id, context_id)`` pairs in one ``_bulk`` request; returns the ids
    OpenSearch failed to delete. A document that is not there counts as deleted (deletes are idempotent)."""
    if not items:
        return []
    lines = [
        json.dumps({"delete": {"_index": layout.alias(ctx), "_id": id_, "routing": ctx}})
        for id_, ctx in items
    ]
    with backend_failures():
        response = client.bulk(body="\n".join(lines) + "\n", request_timeout=BULK_TIMEOUT_SECONDS)
    if not response.get("errors"):
        return []
    return [entry["delete"]["_id"] for entry in response["items"] if entry["delete"].get("error")]
