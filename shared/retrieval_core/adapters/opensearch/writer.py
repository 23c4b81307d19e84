"""Bulk indexing for the loader (``OpenSearchItemWriter``, its ``ItemWriter``) and for rebuilds: a
chunk's documents in ``_bulk`` requests of at most ``MAX_BULK_BYTES``, every document sent to its
context's alias (``client.IndexLayout``) and routed by its context.

A rebuild blocks writes to the old index for the moment it takes to copy the last changes and move the
alias (``generations.OpenSearchGenerations``); a document refused by that block is sent again, after a
pause, until the alias names the new index. Nothing written during a rebuild is lost or refused. So is a
document the node turned away because it was busy (429: its write queue full): sent again alone, after a
growing pause, before it is reported not written.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...ports import WriteRefusal
from .client import IndexLayout, opensearch_failures
from .documents import document_of

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from ...models.item import Item
    from ...ports import ItemKey
    from .index import ContextIndices

# How long a write refused by a rebuild's write block, or by a busy node (429), is retried (the block
# lasts about as long as copying the writes of the last catch-up round; a full write queue drains in
# seconds); past it the ids are reported as not written. Within the ingest function's 15 minutes.
BLOCKED_RETRY_SECONDS = 60.0
_FIRST_PAUSE_SECONDS = 0.05
_MAX_PAUSE_SECONDS = 2.0
_BLOCKED = "cluster_block_exception"
_THROTTLED = 429
_BUSY = frozenset({"es_rejected_execution_exception", "rejected_execution_exception"})
"""The error types of a node's full write queue (its status is 429)."""

MAX_BULK_BYTES = 5 * 1024 * 1024
"""A ``_bulk`` request's body stays under this: OpenSearch Service refuses bodies over 10 MiB on its
smaller instance types (100 MiB on the larger), and 5-15 MiB is the range its guidance gives for bulk
throughput. A chunk of long document chunks with their vectors passes 10 MiB; a single action larger
than this still goes, alone."""

BULK_TIMEOUT_SECONDS = 120.0
"""A load has no caller waiting on a deadline: a cold node indexing a chunk's vectors (HNSW graphs) can
take tens of seconds on small hardware, and a bulk cut off by a short timeout may still be applied,
leaving the load unable to say what it wrote. The ingest function's 15 minutes hold several of these."""


class OpenSearchItemWriter:
    """The loader's ``ItemWriter``: each context's index (created on its first write) through its alias."""

    def __init__(self, indices: ContextIndices) -> None:
        self._indices = indices

    def prepare(self, context_ids: Iterable[str]) -> None:
        for context_id in sorted(context_ids):
            self._indices.ensure(context_id)

    def index(self, items: Sequence[tuple[Item, Sequence[float]]]) -> list[WriteRefusal]:
        documents = [document_of(item, list(vector)) for item, vector in items]
        return bulk_index(self._indices.client, self._indices.layout, documents)

    def delete(self, keys: Sequence[ItemKey]) -> list[str]:
        pairs = [(key.item_id, key.context_id) for key in keys]
        return bulk_delete(self._indices.client, self._indices.layout, pairs)

    def refresh(self, context_ids: Iterable[str]) -> None:
        self._indices.refresh(context_ids)


def bulk_index(
    client: OpenSearch,
    layout: IndexLayout,
    documents: Sequence[dict[str, Any]],
    *,
    index: str | None = None,
) -> list[WriteRefusal]:
    """Index (create or replace) ``documents``; returns those OpenSearch did not accept. ``index``
    names a concrete index to write instead of each context's alias (a rebuild fills its new index
    before the alias moves there)."""
    actions = []
    for doc in documents:
        context_id = doc["context_id"]
        target = index or layout.alias(context_id)
        action = {"_index": target, "_id": doc["id"], "routing": context_id}
        actions.append((doc["id"], f"{json.dumps({'index': action})}\n{json.dumps(doc)}"))
    return _send(client, "index", actions)


def bulk_delete(
    client: OpenSearch, layout: IndexLayout, items: Sequence[tuple[str, str]], *, index: str | None = None
) -> list[str]:
    """Delete the documents of ``(item_id, context_id)`` pairs in one ``_bulk`` request; returns the ids
    OpenSearch failed to delete. A document that is not there counts as deleted (deletes are idempotent).
    ``index`` names a concrete index instead of each context's alias, as for ``bulk_index``."""
    actions = [
        (id_, json.dumps({"delete": {"_index": index or layout.alias(ctx), "_id": id_, "routing": ctx}}))
        for id_, ctx in items
    ]
    return [refusal.item_id for refusal in _send(client, "delete", actions)]


def _send(client: OpenSearch, operation: str, actions: list[tuple[str, str]]) -> list[WriteRefusal]:
    """Send ``(id, action lines)`` in ``_bulk`` requests of at most ``MAX_BULK_BYTES``, in order."""
    return [
        refusal
        for group in by_bytes(actions, MAX_BULK_BYTES)
        for refusal in _send_one(client, operation, group)
    ]


def by_bytes(actions: list[tuple[str, str]], limit: int) -> list[list[tuple[str, str]]]:
    """``actions`` in consecutive groups whose bulk bodies (UTF-8, a newline after each action) stay
    within ``limit`` bytes; an action past the limit on its own is a group of one."""
    groups: list[list[tuple[str, str]]] = []
    size = limit + 1
    for action in actions:
        length = len(action[1].encode()) + 1
        if size + length > limit:
            groups.append([])
            size = 0
        groups[-1].append(action)
        size += length
    return groups


def _send_one(client: OpenSearch, operation: str, actions: list[tuple[str, str]]) -> list[WriteRefusal]:
    """Send ``(id, action lines)`` in one ``_bulk``; resend those refused by a write block or a busy
    node, with a pause that doubles each round (bounded by ``BLOCKED_RETRY_SECONDS``)."""
    deadline = time.monotonic() + BLOCKED_RETRY_SECONDS
    pause = _FIRST_PAUSE_SECONDS
    failed: list[WriteRefusal] = []
    while actions:
        with opensearch_failures():
            response = client.bulk(
                body="\n".join(lines for _, lines in actions) + "\n", request_timeout=BULK_TIMEOUT_SECONDS
            )
        if not response.get("errors"):
            return failed
        blocked = []
        for (id_, lines), entry in zip(actions, response["items"], strict=True):
            result = entry[operation]
            error = result.get("error")
            if error and _passing(result) and time.monotonic() < deadline:
                blocked.append((id_, lines))
            elif error:
                failed.append(_refusal(id_, result))
        actions = blocked
        if actions:
            time.sleep(pause)
            pause = min(pause * 2, _MAX_PAUSE_SECONDS)
    return failed


def _passing(result: dict[str, Any]) -> bool:
    """A refusal that passes: a rebuild's write block, or a busy node's 429 (its queue full)."""
    error = result["error"] if isinstance(result["error"], dict) else {}
    return error.get("type") == _BLOCKED or result.get("status") == _THROTTLED or error.get("type") in _BUSY


FIELD_LIMIT_REFUSAL = (
    "its new metadata keys would take the index past its limit of mapped fields: reuse keys already in "
    "use, or declare them (MetadataFields; docs/STORAGE.md, Metadata types)"
)
_FIELD_LIMIT_REASON = re.compile(r"^Limit of total fields \[\d+\] has been exceeded")


def _refusal(item_id: str, result: dict[str, Any]) -> WriteRefusal:
    """Final for a 4xx other than 429: OpenSearch refused the document itself."""
    status = int(result.get("status", 500))
    final = 400 <= status < 500 and status != 429
    error = result["error"] if isinstance(result["error"], dict) else {}
    if _FIELD_LIMIT_REASON.match(str(error.get("reason", ""))):
        return WriteRefusal(item_id, final, f"the index refused the item: {FIELD_LIMIT_REFUSAL}")
    # Otherwise only the error's type: its reason text can name the index (and, in the pool, what others
    # hold). The field limit's reason is recognised, never quoted.
    kind = str(error.get("type", "error"))
    return WriteRefusal(item_id, final, f"the index refused the item ({kind})")
