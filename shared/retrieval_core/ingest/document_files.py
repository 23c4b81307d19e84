"""Documents through the ingest function: a file under ``contexts/<context_id>/`` (or its sidecar)
created or removed becomes its chunks indexed, replaced or removed, and a per-file record.

Three parts, each readable at once:

- the ledger (``ledger.py``): event order, each file's record and fingerprint, and the one order the
  stores are written in (``pending`` first, the final record last: the commit point);
- the indexer (``indexer.py``): bytes -> parse -> chunk -> vectors -> mentions -> items, within the
  file's budget, writing nothing;
- the writer (``writer.py``): loads, deletes and back-links, made searchable when a reader needs them.

``DocumentFiles`` wires them for the two callers: one event at a time (the deployed ingest function,
each event searchable when it returns) and a sync of a folder (``batched``: files committed together).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime

from ..documents.entities import MentionFinder
from ..documents.expected_pages import ExpectedPages
from ..documents.formats import document_of_sidecar, format_of, is_lines, is_sidecar, skip_reason
from ..documents.limits import DOCUMENT_LIMITS, DocumentLimits
from ..documents.policy import ChunkingPolicy
from ..documents.sources import NO_SOURCES, DocumentSources
from ..documents.status import UNVERSIONED, DocumentStatus, DocumentStatusStore
from ..models.ingest import ObjectRef
from ..models.metadata import MetadataSchema
from ..ports import ContextFieldDeclarations, Embedder, NamingChunks, VectorReader
from .indexer import Indexer
from .ledger import BATCH_CHUNKS, BATCH_FILES, METADATA_ONLY, Batch, Ledger
from .ports import ItemSink, ObjectStore
from .writer import IndexWriter

__all__ = ["METADATA_ONLY", "DocumentFiles", "is_document_key"]


def is_document_key(key: str) -> bool:
    """Keys this use case owns: every one but JSON Lines (a document, a sidecar, or a file it skips)."""
    return not is_lines(key)


class DocumentFiles:
    def __init__(
        self,
        *,
        sink: ItemSink,
        objects: ObjectStore,
        statuses: DocumentStatusStore,
        embedder: Embedder,
        vectors: VectorReader | None,
        mentions: MentionFinder,
        chunking: ChunkingPolicy,
        metadata: MetadataSchema,
        sources: DocumentSources = NO_SOURCES,
        limits: DocumentLimits = DOCUMENT_LIMITS,
        naming: NamingChunks | None = None,
        fields: ContextFieldDeclarations | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
        generation: Callable[[str], str | None] = lambda context_id: UNVERSIONED,
    ) -> None:
        """``fields``: where typed sidecar values declare their keys' types for the context (None:
        nowhere, the pool model; the report then says which declaration to add). ``generation``: the
        generation of a context's index now (``index.uuid``; None: no index)."""
        self._mentions = mentions
        indexer = Indexer(
            objects=objects,
            embedder=embedder,
            vectors=vectors,
            mentions=mentions,
            metadata=metadata,
            limits=limits,
            fields=fields,
            clock=clock,
            monotonic=monotonic,
        )
        self._writer = IndexWriter(
            sink=sink, naming=naming, fields=fields, metadata=metadata, monotonic=monotonic
        )
        self._ledger = Ledger(
            objects=objects,
            statuses=statuses,
            indexer=indexer,
            writer=self._writer,
            chunking=chunking,
            sources=sources,
            limits=limits,
            clock=clock,
            generation=generation,
        )

    @contextmanager
    def deferred_refresh(self) -> Iterator[None]:
        """Files applied inside are made searchable when a reader needs them, not after each: when the
        record of unsearched chunks (``backlinks.UnsearchedChunks``) is full or old, and at the end. A
        sync of a folder applies its files so; an event alone is searchable when it returns."""
        with self._writer.deferred_refresh():
            yield

    @contextmanager
    def batched(
        self,
        files: int = BATCH_FILES,
        chunks: int = BATCH_CHUNKS,
        records: Mapping[str, Mapping[str, DocumentStatus]] | None = None,
        *,
        ahead: bool = False,
        expected: ExpectedPages | None = None,
    ) -> Iterator[Batch]:
        """Files applied inside are committed together (``ledger.Batch``: their records, chunks and rows
        written a batch at a time, each file's final record only after its chunks) and made searchable
        when a reader needs them (``deferred_refresh``, checked after each commit). A sync of a folder
        applies its files so, with ``records``: every record of its context, read once, and ``ahead``:
        a batch commits while the next is planned (``Ledger.batched``); the sync is then its contexts'
        only writer, so reads of other writers' names back off while quiet (``MentionFinder.only_writer``),
        and ``expected``: the pages it will index, so a chunk naming one ahead mentions it at its first
        write, not by a back-link (``documents.expected_pages``)."""
        with (
            self._mentions.only_writer(None if expected is None else expected.ahead),
            self._writer.deferred_refresh(),
            self._ledger.batched(
                files,
                chunks,
                records,
                ahead=ahead,
                committed=self._writer.searchable_when_due,
                expected=expected,
            ) as batch,
        ):
            yield batch

    def created(self, ref: ObjectRef) -> DocumentStatus | None:
        """Index (or re-index) the file ``ref`` names, or the file whose sidecar it is. None: the key
        names no context, or a sidecar of no supported file (nothing to do)."""
        if is_sidecar(ref.key):
            return self._reconsider(ObjectRef(ref.bucket, document_of_sidecar(ref.key)), ref.sequencer)
        return self._applied(ref, ref.sequencer)

    def removed(self, ref: ObjectRef) -> DocumentStatus | None:
        """The file (or its sidecar) is gone: remove its chunks; a file that still has a current version
        (an old version was deleted) is indexed as it now is."""
        key = document_of_sidecar(ref.key) if is_sidecar(ref.key) else ref.key
        return self._reconsider(ObjectRef(ref.bucket, key), ref.sequencer)

    def _reconsider(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        """The file as it now is: indexed from its current version, or removed when it has none."""
        if format_of(ref.key) is None and skip_reason(ref.key) is None:
            return None
        return self._applied(ref, sequencer)

    def _applied(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        """The file applied, then what it wrote made searchable (at once, or when due while deferred; in a
        batch, after each commit instead, on the thread that commits)."""
        try:
            return self._ledger.apply(ref, sequencer)
        finally:
            if not self._ledger.batching:
                self._writer.searchable_when_due()
