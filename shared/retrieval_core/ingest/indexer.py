"""The indexer: one file's bytes become the items its chunks are, and nothing is written on the way.

bytes -> parse -> chunk -> vectors (the stored one of a chunk whose text is unchanged, the rest
embedded) -> mentions (the context's dictionary, the file's own, the page's title) -> items. Every step
spends the file's one budget (``documents/file_budget.py``: wall time, the chunk count and size), so a
file past a bound fails alone before anything of it reaches a store (``DocumentRejectedError``).
What the items become in the stores, and in what order, is the writer's and the ledger's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..documents.backlinks import is_page_mention
from ..documents.chunk_items import FILE_ENTITY_TYPE, FileRef, chunk_items, heading_of
from ..documents.chunking import Chunk, ChunkingConfig, chunk_document
from ..documents.entities import MentionFinder
from ..documents.errors import DocumentRejectedError, DocumentSkippedError
from ..documents.expected_pages import ExpectedPages
from ..documents.file_budget import FileBudget
from ..documents.formats import DocumentFormat, sidecar_of
from ..documents.limits import DocumentLimits
from ..documents.name_dictionary import NameIndex
from ..documents.pages import about_mention, page_title
from ..documents.parsers import parse
from ..documents.sidecar import NO_SIDECAR, Sidecar, read_sidecar
from ..models.ingest import ObjectRef
from ..models.item import Item, embedding_input
from ..models.metadata import FieldType, MetadataSchema
from ..models.text_window import token_counter, window_of
from ..ports import ContextFieldDeclarations, Embedder, NamedEntity, VectorReader
from .ports import ObjectStore

MENTIONS_PER_CHUNK = 32


@dataclass(frozen=True, slots=True)
class SidecarRead:
    """A file's sidecar as read: its bytes (None: it has none), typed against the context's key types."""

    data: bytes | None
    sidecar: Sidecar
    context_types: dict[str, FieldType]
    """The types the context's typed sidecars declared so far (the writer declares the new ones)."""


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """A file as the index is to hold it: its chunks' items (entry N is chunk N), its page's title (the
    back-links the writer looks for) and the dictionary as the file leaves it."""

    items: list[Item]
    title: str | None
    known: NameIndex
    linked_ahead: bool = False
    """Every chunk a search could find naming its title mentions its page already
    (``ExpectedPages.linked_ahead``): its back-links need no search for the title."""


class Indexer:
    def __init__(
        self,
        *,
        objects: ObjectStore,
        embedder: Embedder,
        vectors: VectorReader | None,
        mentions: MentionFinder,
        metadata: MetadataSchema,
        limits: DocumentLimits,
        fields: ContextFieldDeclarations | None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._objects = objects
        self._embedder = embedder
        self._vectors_of = vectors
        self._mentions = mentions
        self._metadata = metadata
        self._limits = limits
        self._fields = fields
        self._clock = clock
        self._monotonic = monotonic
        self.expected: ExpectedPages | None = None
        """The pages a sync indexes ahead of the file being planned (``Ledger.batched``), if any."""

    def budget(self) -> FileBudget:
        """One file's budget, started now: from its bytes to the index."""
        return FileBudget(self._limits, self._monotonic)

    def sidecar(self, file: FileRef) -> SidecarRead:
        """The file's sidecar (read, bounded, typed), and the types the context gives its keys so far
        (read only for a file with a sidecar)."""
        data = self._objects.read_bytes(
            ObjectRef(file.bucket, sidecar_of(file.key)), self._limits.sidecar_bytes
        )
        types = {} if self._fields is None or data is None else self._fields.field_types(file.context_id)
        if data is None:
            return SidecarRead(None, NO_SIDECAR, types)
        return SidecarRead(data, read_sidecar(data, self._metadata, self._limits, types), types)

    def indexed(
        self,
        file: FileRef,
        fmt: DocumentFormat,
        data: bytes,
        sidecar: Sidecar,
        chunking: ChunkingConfig,
        indexed_before: bool,
        budget: FileBudget,
    ) -> IndexedFile:
        """The file's items; ``indexed_before``: it has chunks in the index (whose vectors may be reused)."""
        chunks = self._chunks(fmt, data, sidecar, chunking, budget)
        ids = [file.chunk_id(position) for position in range(len(chunks))]
        vectors = self._vectors(file, ids, chunks, indexed_before, budget)
        # The context's dictionary (kept across files): the mentions are found against it, and what
        # the page names joins it (what a read after its load would give), so the next file sees it.
        known = self._mentions.dictionary(file.context_id)
        title = page_title(chunks)
        mentions = self._chunk_mentions(file, chunks, title, known)
        # A sync's pages still ahead that a chunk names: mentioned now, not back-linked later. Not added
        # to the dictionary: until its file is planned, a page is mentioned only so (the same everywhere).
        expected = self.expected
        linked = (
            mentions
            if expected is None
            else expected.linked(file.context_id, [chunk.text for chunk in chunks], mentions, known)
        )
        items = chunk_items(
            file,
            chunks,
            metadata=dict(sidecar.metadata),
            mentions=linked,
            vectors=vectors,
            created_at=self._clock(),
        )
        budget.check("indexing")
        known.add(_named(mentions))
        ahead = expected is not None and title is not None and expected.linked_ahead(file.key, title)
        return IndexedFile(items, title, known, ahead)

    def named(self, context_id: str, text: str, page: NamedEntity) -> list[dict[str, str]]:
        """What a text names without ``page`` (a page that never came): its mentions against the
        context's dictionary now, or, where the dictionary gives the page itself (it read the mentions a
        sync gave ahead back from the index), the extractor's names alone."""
        found = self._mentions.mentions(context_id, [text], self._mentions.dictionary(context_id))[0]
        if any(is_page_mention(m, page) for m in found):
            return self._mentions.mentions(context_id, [text], NameIndex())[0]
        return found

    def _chunks(
        self, fmt: DocumentFormat, data: bytes, sidecar: Sidecar, chunking: ChunkingConfig, budget: FileBudget
    ) -> list[Chunk]:
        """The file parsed and chunked within its budget: time, then the chunk bounds before any embedding."""
        parsed = parse(fmt, data, self._limits, sidecar.records)
        budget.check("parsing")
        if parsed.navigation is not None:
            raise DocumentSkippedError(parsed.navigation)
        chunks = chunk_document(
            parsed,
            chunking,
            window=window_of(self._embedder.name),
            embed=budget.embedding(self._embedder.embed),
            count_tokens=budget.counting(token_counter(self._embedder)),
        )
        if not chunks:
            raise DocumentRejectedError("holds no text")
        budget.check_chunks(chunks)
        return chunks

    def _vectors(
        self, file: FileRef, ids: list[str], chunks: list[Chunk], indexed_before: bool, budget: FileBudget
    ) -> dict[str, list[float]]:
        """Every chunk's vector: the stored one where its text is unchanged (only a file indexed before
        has any: a new one costs no read), the rest embedded in batches within the file's wall time."""
        stored = self._vectors_of.vectors(file.context_id, ids) if self._vectors_of and indexed_before else {}
        inputs = {
            chunk_id: (chunk.text, heading_of(chunk)) for chunk_id, chunk in zip(ids, chunks, strict=True)
        }
        vectors = {
            chunk_id: stored[chunk_id].vector
            for chunk_id, (text, heading) in inputs.items()
            if chunk_id in stored and (stored[chunk_id].text, stored[chunk_id].heading) == (text, heading)
        }
        missing = [
            (chunk_id, embedding_input(text, heading))
            for chunk_id, (text, heading) in inputs.items()
            if chunk_id not in vectors
        ]
        embedded = budget.embedding(self._embedder.embed)([text for _, text in missing])
        return vectors | {chunk_id: vector for (chunk_id, _), vector in zip(missing, embedded, strict=True)}

    def _chunk_mentions(
        self, file: FileRef, chunks: list[Chunk], title: str | None, known: NameIndex
    ) -> list[list[dict[str, str]]]:
        """Each chunk's mentions: its file's, its page's, then what it names (``known`` and extracted)."""
        mentions = self._mentions.mentions(file.context_id, [chunk.text for chunk in chunks], known)
        file_mention = {"entity_id": file.file_id, "name": file.relative_key[-256:], "type": FILE_ENTITY_TYPE}
        own = [file_mention] if title is None else [file_mention, about_mention(file.context_id, title)]
        own_ids = {m["entity_id"] for m in own}
        return [
            [*own, *(m for m in found if m["entity_id"] not in own_ids)][:MENTIONS_PER_CHUNK]
            for found in mentions
        ]


def _named(mentions: list[list[dict[str, str]]]) -> list[NamedEntity]:
    """The dictionary entries a page's chunk mentions add (what a read after its load would give)."""
    return [NamedEntity(m["entity_id"], m["name"], m["type"]) for found in mentions for m in found]
