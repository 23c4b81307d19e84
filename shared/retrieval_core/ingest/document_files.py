"""Documents through the ingest function: a file under ``contexts/<context_id>/`` (or its sidecar)
created or removed becomes its chunks indexed, replaced or removed, and a per-file status.

Per event, in order: the stored status is read; an event older than the one it records (S3's
``sequencer``) changes nothing. The file and its sidecar are read (bounded), hashed: the same bytes,
sidecar and chunking as the indexed version is ``unchanged``. Otherwise a ``pending`` status is written
before the work, and the file is parsed and chunked, the chunks' stored vectors are reused where their
text is unchanged (a sidecar-only change embeds nothing), the rest embedded, all within the file's budget
(``documents/file_budget.py``: one wall time for parse, chunk, embed and index, the chunk count and
size). ``pending`` is written again when the file is to have more chunks than it had (naming every id a
retry must replace); the chunks load, the ids past the new count are deleted (an overwrite leaves no
stale chunk), and the final status is written last, so a crash or a kill anywhere in between leaves
``pending``, which no event or sync takes for done. A file that cannot be read or passes a bound
fails alone: its chunks are removed and its status says why (and keeps the failed bytes' hash).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from ..documents.backlinks import BACKLINKS_PER_PAGE, UnsearchedChunks, backlink_names, backlinked
from ..documents.chunk_items import FILE_ENTITY_TYPE, FileRef, chunk_items, heading_of
from ..documents.chunking import Chunk, ChunkingConfig, chunk_document
from ..documents.entities import MentionFinder, entity_id_of
from ..documents.errors import ChunkingConfigError, DocumentRejectedError, DocumentSkippedError
from ..documents.file_budget import FileBudget
from ..documents.formats import (
    DocumentFormat,
    document_of_sidecar,
    format_of,
    is_lines,
    is_sidecar,
    sidecar_of,
    skip_reason,
)
from ..documents.limits import DOCUMENT_LIMITS, DocumentLimits
from ..documents.name_dictionary import NameIndex
from ..documents.pages import about_mention, page_title
from ..documents.parsers import parse
from ..documents.policy import ChunkingPolicy
from ..documents.sidecar import NO_SIDECAR, Sidecar, read_sidecar
from ..documents.sources import NO_SOURCES, DocumentSources
from ..documents.status import (
    INDEXED,
    UNVERSIONED,
    DocumentStatus,
    DocumentStatusStore,
    FileStatus,
    is_stale,
    later,
)
from ..loading.parse import Delete, Upsert
from ..models.ingest import ObjectRef
from ..models.item import Item, embedding_input
from ..models.metadata import FieldType, MetadataSchema
from ..models.page_titles import PAGE_ENTITY_TYPE
from ..models.text_window import token_counter, window_of
from ..models.vocabulary import iso
from ..ports import ContextFieldDeclarations, Embedder, NamedEntity, NamingChunks, VectorReader
from .errors import IngestIncompleteError
from .objects import CONTEXTS_PREFIX, context_of_key
from .ports import ItemSink, ObjectStore

METADATA_ONLY = "metadata only: the sidecar changed, the text is as it was"
REINDEXED = "indexed again: the index its chunks were in was replaced (restored, rebuilt, lost or new)"


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
        self._sink = sink
        self._objects = objects
        self._statuses = statuses
        self._embedder = embedder
        self._vectors_of = vectors
        self._mentions = mentions
        self._chunking = chunking
        self._metadata = metadata
        self._sources = sources
        self._limits = limits
        self._naming = naming
        self._fields = fields
        """Where typed sidecar values declare their keys' types for the context (None: nowhere, the pool
        model; the report then says which declaration to add)."""
        self._clock = clock
        self._monotonic = monotonic
        self._generation = generation
        """The generation of a context's index now (``index.uuid``; None: no index): a record names the
        one its chunks went to, and says ``unchanged`` only while it is still the index."""
        self._unsearched = UnsearchedChunks(monotonic)
        self._deferring = False

    @contextmanager
    def deferred_refresh(self) -> Iterator[None]:
        """Files applied inside are made searchable when a reader needs them, not after each: when the
        record of unsearched chunks (``backlinks.UnsearchedChunks``) is full or old, and at the end. A
        sync of a folder applies its files so; an event alone is searchable when it returns."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False
            self._searchable(self._unsearched.contexts())

    def _searchable(self, contexts: set[str]) -> None:
        if contexts:
            self._sink.refresh(contexts)
            self._unsearched.searchable()

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

    def _applied(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        """The file applied, then what it wrote made searchable (at once, or when due while deferred)."""
        try:
            return self._apply(ref, sequencer)
        finally:
            self._searchable(self._unsearched.due() if self._deferring else self._unsearched.contexts())

    def _reconsider(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        """The file as it now is: indexed from its current version, or removed when it has none."""
        if format_of(ref.key) is None and skip_reason(ref.key) is None:
            return None
        return self._applied(ref, sequencer)

    def _apply(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        context_id = context_of_key(ref.key)
        if context_id is None:
            return None
        fmt = format_of(ref.key)
        file_key = ref.key[len(f"{CONTEXTS_PREFIX}{context_id}/") :]
        previous = self._statuses.get(context_id, file_key)
        if previous is not None and not later(sequencer, previous.sequencer):
            return previous  # an older event arriving late: the newer one already applied
        # A file of a type that is skipped is only checked for being there (one byte read).
        data = self._objects.read_bytes(ref, self._limits.file_bytes if fmt is not None else 0)
        version = ref.version_id or (ref.etag or "").strip('"') or None
        file = FileRef(context_id, ref.bucket, ref.key, file_key, version or "", self._sources.place(ref.key))
        if data is None:  # gone (or a sidecar ahead of its file): remove what is indexed, if anything
            return None if previous is None else self._remove(file, previous, sequencer, "deleted", None)
        skipped = skip_reason(ref.key) if fmt is None else self._too_large(data)
        if skipped is not None:  # not a failure: listed, its old chunks (if any) removed
            return self._remove(file, previous, sequencer, "skipped", skipped)
        assert fmt is not None
        try:
            return self._index(file, fmt, data, previous, sequencer)
        except DocumentSkippedError as nothing:  # only navigation: listed as skipped, its hash kept
            kept = (_digest(data), None, None)
            return self._remove(file, previous, sequencer, "skipped", f"the file is {nothing.message}", kept)
        except (DocumentRejectedError, ChunkingConfigError) as rejected:
            # The failed bytes' hash is kept: a sync may then say "failed" of the same bytes unread.
            failed = (_digest(data), None, None)
            return self._remove(file, previous, sequencer, "failed", f"the file {rejected.message}", failed)

    def _index(
        self,
        file: FileRef,
        fmt: DocumentFormat,
        data: bytes,
        previous: DocumentStatus | None,
        sequencer: str | None,
    ) -> DocumentStatus:
        budget = FileBudget(self._limits, self._monotonic)  # one budget from the bytes to the index
        if not data.strip():
            raise DocumentRejectedError("is empty")
        sidecar_bytes, sidecar, context_types = self._sidecar(file)
        chunking = self._chunking.for_key(file.key)
        placed = chunking.model_dump_json() + file.place.fingerprint  # a new base URL indexes it again
        hashes = _digest(data), _digest(sidecar_bytes or b""), placed
        generation = self._generation(file.context_id)
        stale = previous is not None and is_stale(previous, generation)  # its chunks are not there
        if previous is not None and previous.status in INDEXED and not stale and hashes == _hashes(previous):
            return self._record(file, "unchanged", previous.chunks, None, sequencer, hashes, generation)
        # Pending before the work: a crash or a kill from here on leaves a status no event or sync takes
        # for done, naming every chunk a retry must replace.
        indexed = previous.chunks if previous else 0
        self._record(file, "pending", indexed, None, sequencer, (None, None, None))
        chunks = self._chunks(fmt, data, sidecar, chunking, budget)
        ids = [file.chunk_id(position) for position in range(len(chunks))]
        vectors = self._vectors(file, ids, chunks, previous, budget)
        # The context's dictionary (kept across files): the mentions are found against it, and so are
        # the page's back-links (with what this page adds to it).
        known = self._mentions.dictionary(file.context_id)
        title = page_title(chunks)
        chunk_mentions = self._chunk_mentions(file, chunks, title, known)
        items = chunk_items(
            file,
            chunks,
            metadata=dict(sidecar.metadata),
            mentions=chunk_mentions,
            vectors=vectors,
            created_at=self._clock(),
        )
        budget.check("indexing")
        note = self._declare(file.context_id, sidecar, context_types)  # before the values are indexed
        if len(chunks) > indexed:  # the ids about to be written, before they are
            self._record(file, "pending", len(chunks), None, sequencer, (None, None, None))
        self._load(file, items, indexed)
        known.add(_named(chunk_mentions))  # what a read after this page's load would give
        if title is not None:
            self._link_back(file.context_id, title, known)
        status, reason = _outcome(previous, hashes, stale, note)
        generation = self._generation(file.context_id)  # read again: a first load creates the index
        return self._record(file, status, len(chunks), reason, sequencer, hashes, generation)

    def _sidecar(self, file: FileRef) -> tuple[bytes | None, Sidecar, dict[str, FieldType]]:
        """The file's sidecar (its bytes, read), and the types the context gives its keys so far."""
        data = self._objects.read_bytes(
            ObjectRef(file.bucket, sidecar_of(file.key)), self._limits.sidecar_bytes
        )
        context_types = self._context_types(file.context_id, data)
        if data is None:
            return None, NO_SIDECAR, context_types
        return data, read_sidecar(data, self._metadata, self._limits, context_types), context_types

    def _chunk_mentions(
        self, file: FileRef, chunks: list[Chunk], title: str | None, known: NameIndex
    ) -> list[list[dict[str, str]]]:
        """Each chunk's mentions: its file's, its page's, then what it names (``known`` and extracted)."""
        mentions = self._mentions.mentions(file.context_id, [chunk.text for chunk in chunks], known)
        file_mention = {"entity_id": file.file_id, "name": file.relative_key[-256:], "type": FILE_ENTITY_TYPE}
        own = [file_mention] if title is None else [file_mention, about_mention(file.context_id, title)]
        own_ids = {m["entity_id"] for m in own}
        return [[*own, *(m for m in found if m["entity_id"] not in own_ids)][:32] for found in mentions]

    def _load(self, file: FileRef, items: list[Item], indexed: int) -> None:
        """The file's chunks loaded (entry N is chunk N), the ids past them (of ``indexed`` before)
        deleted; a chunk the index refuses fails the file with its chunks removed."""
        count = len(items)
        loads = [Upsert(position, item) for position, item in enumerate(items)]
        stale = _deletes(file, range(count, indexed))
        report = self._sink.load([*loads, *stale], refresh=False)
        self._unsearched.written(file.context_id, deleted=[d.id for d in stale])
        if report.unwritten or report.stopped:
            raise IngestIncompleteError(f"{len(report.unwritten)} chunks of {file.key} were not written")
        if report.errors:
            first = report.errors[0]
            self._sink.load(_deletes(file, range(count)), refresh=False)
            self._unsearched.written(file.context_id, deleted=[item.id for item in items])
            raise DocumentRejectedError(
                f"has a chunk the index refused (chunk {first.line}: {first.message})"
            )
        self._unsearched.written(file.context_id, items)

    def _context_types(self, context_id: str, sidecar_bytes: bytes | None) -> dict[str, FieldType]:
        """The types the context's typed sidecars declared so far (read only for a file with a sidecar)."""
        if self._fields is None or sidecar_bytes is None:
            return {}
        return self._fields.field_types(context_id)

    def _declare(self, context_id: str, sidecar: Sidecar, context_types: MetadataSchema) -> str | None:
        """Typed sidecar values declare their keys' types for the context, so a range filter applies with
        no declaration of its own; the report's line when one cannot (the pool model, or a key the
        context's index already maps otherwise)."""
        if self._fields is None:
            return sidecar.undeclared(self._metadata)
        new = {n: t for n, t in sidecar.typed.items() if n not in self._metadata and n not in context_types}
        return sidecar.retyped(self._fields.declare(context_id, new)) if new else None

    def _too_large(self, data: bytes) -> str | None:
        """Bedrock skips a file over its size limit; so do we (the reason names the limit)."""
        if len(data) > self._limits.file_bytes:
            return f"larger than {_size(self._limits.file_bytes)} (the size limit)"
        return None

    def _link_back(self, context_id: str, title: str, known: NameIndex) -> None:
        """The chunks indexed before this page that name its title now mention it (``backlinks``):
        those a search finds, and those written since the last refresh (their newest version is the
        record's); ``known`` is the dictionary as this page's load left it."""
        if self._naming is None:
            return
        entry = NamedEntity(entity_id_of(context_id, title), title, PAGE_ENTITY_TYPE)
        names = backlink_names(entry, known)
        found = self._naming.chunks_naming(context_id, names, entry, BACKLINKS_PER_PAGE)
        recorded = self._unsearched.naming(context_id, names, entry)
        sources = [*recorded, *(s for s in found if s.get("id") not in self._unsearched)]
        linked = backlinked(sources, entry, names)[:BACKLINKS_PER_PAGE]
        if linked:
            lines = [Upsert(number, item) for number, item in enumerate(linked)]
            report = self._sink.load(lines, refresh=False)
            if report.unwritten or report.stopped:
                raise IngestIncompleteError(
                    f"{len(report.unwritten)} back-links to {title!r} were not written"
                )
            self._unsearched.written(context_id, linked)

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
        self,
        file: FileRef,
        ids: list[str],
        chunks: list[Chunk],
        previous: DocumentStatus | None,
        budget: FileBudget,
    ) -> dict[str, list[float]]:
        """Every chunk's vector: the stored one where its text is unchanged (only a file indexed before
        has any: a new one costs no read), the rest embedded in batches within the file's wall time."""
        indexed_before = previous is not None and previous.chunks > 0
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

    def _remove(
        self,
        file: FileRef,
        previous: DocumentStatus | None,
        sequencer: str | None,
        status: FileStatus,
        reason: str | None,
        hashes: tuple[str | None, str | None, str | None] = (None, None, None),
    ) -> DocumentStatus:
        if previous is not None and previous.chunks:
            deletes = _deletes(file, range(previous.chunks))
            report = self._sink.load(deletes, refresh=False)
            self._unsearched.written(file.context_id, deleted=[d.id for d in deletes])
            if report.unwritten or report.stopped:
                raise IngestIncompleteError(f"{len(report.unwritten)} chunks of {file.key} were not removed")
        return self._record(file, status, 0, reason, sequencer, hashes)

    def _record(
        self,
        file: FileRef,
        status: FileStatus,
        chunks: int,
        reason: str | None,
        sequencer: str | None,
        hashes: tuple[str | None, str | None, str | None],
        generation: str | None = None,
    ) -> DocumentStatus:
        record = DocumentStatus(
            key=file.relative_key,
            status=status,
            version=file.version or None,
            chunks=chunks,
            reason=reason,
            updated_at=iso(self._clock()),
            content_hash=hashes[0],
            sidecar_hash=hashes[1],
            chunking=hashes[2],
            sequencer=sequencer,
            generation=generation,
        )
        self._statuses.put(file.context_id, record)
        return record


def _outcome(
    previous: DocumentStatus | None, hashes: tuple[str, str, str], stale: bool, note: str | None
) -> tuple[FileStatus, str | None]:
    """A file's status and reason once its chunks are written: ``updated`` when it had chunks before,
    ``metadata only`` when only its sidecar changed, ``indexed again`` when its old index was replaced."""
    replaced = previous is not None and previous.chunks > 0 and previous.status != "pending"
    reason = METADATA_ONLY if replaced and _same_text(previous, hashes) else None
    reason = REINDEXED if stale else reason
    return ("updated" if replaced else "indexed"), (
        f"{reason}; {note}" if reason and note else reason or note
    )


def _same_text(previous: DocumentStatus | None, hashes: tuple[str, str, str]) -> bool:
    """The file's bytes and chunking are those indexed: only its sidecar changed."""
    return previous is not None and (previous.content_hash, previous.chunking) == (hashes[0], hashes[2])


def _hashes(status: DocumentStatus) -> tuple[str | None, str | None, str | None]:
    return status.content_hash, status.sidecar_hash, status.chunking


def _named(mentions: list[list[dict[str, str]]]) -> list[NamedEntity]:
    """The dictionary entries a page's chunk mentions add (what a read after its load would give)."""
    return [NamedEntity(m["entity_id"], m["name"], m["type"]) for found in mentions for m in found]


def _size(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MB" if limit % mib == 0 else f"{limit:,} bytes"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _deletes(file: FileRef, positions: Iterable[int]) -> list[Delete]:
    """Deletes of the file's chunks at ``positions``."""
    return [Delete(file.chunk_id(p)) for p in positions]
