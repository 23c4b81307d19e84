"""Moving item documents between indices: between index layouts (``retrieval reindex``: pool to silo
and back) and from an index into its rebuilt successor (``generations``).

Documents are copied as stored, vectors included, so nothing is embedded again; the target creates each
context's index on its first write, from the one mapping. Copying is idempotent (each document replaces
its own id), so a copy interrupted or overtaken by new writes is repaired by running it again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from ...errors import RetrievalError
from ...ports import WriteRefusal
from .client import opensearch_failures
from .documents import with_names
from .index import ContextIndices
from .writer import bulk_index

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

COPY_BATCH = 500


class CopyRejectedError(RetrievalError):
    """OpenSearch refused some documents of a copy; it names them so a rerun can be checked."""

    def __init__(self, ids: list[str]) -> None:
        super().__init__(f"{len(ids)} documents were not copied, e.g. {', '.join(ids[:5])}; run it again")
        self.ids = ids


def scan_documents(
    client: OpenSearch, index: str, query: dict[str, Any] | None = None, **params: Any
) -> Iterator[dict[str, Any]]:
    """Every stored document of ``index`` (a name or pattern) that ``query`` matches (all by default),
    vectors included."""
    from opensearchpy.helpers import scan

    with opensearch_failures():
        for hit in scan(
            client,
            index=index,
            query={"query": query or {"match_all": {}}},
            size=COPY_BATCH,
            ignore_unavailable=True,
            allow_no_indices=True,
            **params,
        ):
            yield hit["_source"]


def write_batches(
    documents: Iterable[dict[str, Any]], write: Callable[[Sequence[dict[str, Any]]], list[WriteRefusal]]
) -> Counter[str]:
    """Hand ``documents`` to ``write`` in batches; returns documents per context. ``write`` returns the
    documents it could not write, which stop the copy (``CopyRejectedError``)."""
    copied: Counter[str] = Counter()
    iterator = map(with_names, documents)
    while batch := list(islice(iterator, COPY_BATCH)):
        rejected = write(batch)
        if rejected:
            raise CopyRejectedError([refusal.item_id for refusal in rejected])
        copied.update(doc["context_id"] for doc in batch)
    return copied


def copy_documents(documents: Iterable[dict[str, Any]], target: ContextIndices) -> Counter[str]:
    """Write ``documents`` into ``target``'s layout and refresh it; returns documents per context."""

    def write(batch: Sequence[dict[str, Any]]) -> list[WriteRefusal]:
        for context_id in sorted({doc["context_id"] for doc in batch}):
            target.ensure(context_id)
        return bulk_index(target.client, target.layout, batch)

    copied = write_batches(documents, write)
    target.refresh(copied)
    return copied
