"""The ledger: what becomes of each file an event names, its record (``documents/status.py``), and the
one order every store is written in.

A file's record is read first: an event older than the one it records (S3's ``sequencer``) changes
nothing. The file is read (bounded) and its ``Fingerprint`` taken: its bytes' digest, its sidecar's, its
chunking (with where it opens) and the index generation now. A committed record with the same
fingerprint is ``unchanged``; anything else is planned as a ``Change`` by the indexer (nothing
written yet: a kill while parsing or embedding leaves the record as true as it was) and committed:

1. the record ``pending``, with the new fingerprint and every chunk id a retry must replace;
2. the index: typed sidecar keys declared, the file's chunks (rows, then documents) and the deletes of
   the ids past them, then the back-links (the writer);
3. the final record (``indexed``, ``updated``, ``deleted``, ``skipped`` or ``failed``): the commit point.

So a crash or a kill between 1 and 3 leaves ``pending``, which no event or sync takes for done, and no
record ever says ``indexed`` of chunks that are not written. A file that cannot be read or passes a
bound fails alone: its chunks are removed and its record says why (keeping the failed bytes' digest,
so a sync may say ``failed`` of the same bytes unread).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..documents.chunk_items import FileRef
from ..documents.errors import ChunkingConfigError, DocumentRejectedError, DocumentSkippedError
from ..documents.expected_pages import ExpectedPages
from ..documents.formats import DocumentFormat, format_of, skip_reason
from ..documents.limits import DocumentLimits
from ..documents.policy import ChunkingPolicy
from ..documents.sources import DocumentSources
from ..documents.status import INDEXED, DocumentStatus, DocumentStatusStore, FileStatus, is_stale, later
from ..models.ingest import ObjectRef
from ..models.page_titles import title_aliases
from ..models.vocabulary import iso
from .indexer import IndexedFile, Indexer, SidecarRead
from .objects import CONTEXTS_PREFIX, context_of_key
from .ports import ObjectStore
from .writer import FileWrite, IndexWriter

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

METADATA_ONLY = "metadata only: the sidecar changed, the text is as it was"
BATCH_FILES = 32
BATCH_CHUNKS = 256
"""A batch's bounds: about one loader batch of chunks, and what a kill may leave to redo."""
REINDEXED = "indexed again: the index its chunks were in was replaced (restored, rebuilt, lost or new)"


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What a file's chunks were made from, and where they are. A committed record says ``unchanged``
    only when all four match the file as it is now."""

    content: str | None = None
    """The digest of the file's bytes (kept by a ``failed`` or navigation-only ``skipped`` record too)."""
    sidecar: str | None = None
    """The digest of its sidecar's bytes (of none: of no bytes)."""
    chunking: str | None = None
    """Its chunking configuration and where it opens (a new base URL indexes it again)."""
    generation: str | None = None
    """The index generation (``index.uuid``) its chunks are in; None: no index holds them."""

    @classmethod
    def of(cls, record: DocumentStatus) -> Fingerprint:
        return cls(record.content_hash, record.sidecar_hash, record.chunking, record.generation)

    @classmethod
    def of_bytes(cls, data: bytes) -> Fingerprint:
        """Only the bytes' digest: what a file that fails (or holds only navigation) keeps."""
        return cls(_digest(data))

    def same_text(self, other: Fingerprint) -> bool:
        """The same bytes chunked the same way: only the sidecar (or the generation) differs."""
        return (self.content, self.chunking) == (other.content, other.chunking)


NO_FINGERPRINT = Fingerprint()


def unchanged(committed: DocumentStatus | None, now: Fingerprint) -> bool:
    """Whether the committed record vouches for the file as it is ``now``: indexed from these bytes,
    this sidecar and chunking, in the index that is the context's now."""
    return (
        committed is not None
        and committed.status in INDEXED
        and now.generation is not None
        and Fingerprint.of(committed) == now
    )


@dataclass(frozen=True, slots=True)
class Change:
    """One file's change, planned and not yet written: its new chunks (``indexed``, with its sidecar's
    typed keys to declare first) or, without them, the removal of what it had, ending in ``status``."""

    file: FileRef
    previous: DocumentStatus | None
    sequencer: str | None
    fingerprint: Fingerprint
    indexed: IndexedFile | None = None
    sidecar: SidecarRead | None = None
    status: FileStatus = "indexed"
    reason: str | None = None

    @property
    def before(self) -> int:
        """The chunks the index holds of the file's earlier version."""
        return self.previous.chunks if self.previous is not None else 0

    @property
    def write(self) -> FileWrite:
        if self.indexed is None:
            return FileWrite(self.file, [], self.before)
        indexed = self.indexed
        return FileWrite(
            self.file, indexed.items, self.before, indexed.title, indexed.known, indexed.linked_ahead
        )

    @property
    def chunks(self) -> int:
        return len(self.indexed.items) if self.indexed is not None else 0

    def as_it_stands(self) -> Change:
        """The change with its page's place in the dictionary taken now (its title's entries only): a
        commit running beside the planning of later files, which extend the dictionary, links back as a
        commit at this point would (a later file making the title ambiguous does not, whatever the
        timing)."""
        if self.indexed is None or self.indexed.title is None:
            return self
        title = self.indexed.title
        known = self.indexed.known.only([title, *title_aliases(title)])
        return replace(self, indexed=replace(self.indexed, known=known))

    def pending(self, clock: Callable[[], datetime]) -> DocumentStatus:
        """Its record before anything of it is written: the new fingerprint, and every chunk id a retry
        must replace (the more of the old and the new)."""
        chunks = max(self.before, self.chunks)
        return _status(self.file, "pending", chunks, None, self.sequencer, self.fingerprint, clock)


class Ledger:
    def __init__(
        self,
        *,
        objects: ObjectStore,
        statuses: DocumentStatusStore,
        indexer: Indexer,
        writer: IndexWriter,
        chunking: ChunkingPolicy,
        sources: DocumentSources,
        limits: DocumentLimits,
        clock: Callable[[], datetime],
        generation: Callable[[str], str | None],
    ) -> None:
        self._objects = objects
        self._statuses = statuses
        self._indexer = indexer
        self._writer = writer
        self._chunking = chunking
        self._sources = sources
        self._limits = limits
        self.clock = clock
        self._generation = generation
        """The generation of a context's index now (``index.uuid``; None: no index)."""
        self._batch: Batch | None = None
        self._expected: ExpectedPages | None = None

    @contextmanager
    def batched(
        self,
        files: int = BATCH_FILES,
        chunks: int = BATCH_CHUNKS,
        records: Mapping[str, Mapping[str, DocumentStatus]] | None = None,
        *,
        ahead: bool = False,
        committed: Callable[[], None] = lambda: None,
        expected: ExpectedPages | None = None,
    ) -> Iterator[Batch]:
        """Files applied inside are committed together, ``files`` (or ``chunks``) at a time (``Batch``);
        what is still queued at the end is committed then. ``records``: every record of these contexts
        (by file key), as the caller read them just before, when it is their only writer meanwhile (a
        sync): a file's record is then looked up there, kept up to date with what the batch writes,
        not read once per file (a key it lacks has none). ``ahead``: a full batch commits on a thread of
        its own while the next one is planned (read, parsed, embedded), one commit at a time, in order.
        ``committed`` runs after each commit, on the thread that made it. ``expected``: the pages the
        caller will index (a sync's pre-pass): a chunk naming one ahead mentions it at its first write
        (``documents.expected_pages``), and one that never comes is unlinked again, before its file's
        final record when its file is committed, else at the end."""
        executor = None
        if ahead:
            from concurrent.futures import ThreadPoolExecutor

            executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="commit")
        batch = Batch(self, files, chunks, records or {}, executor, committed)
        self._batch = batch
        if expected is not None:
            expected.fresh = self._generation(expected.context_id) is None
        self._expected = self._indexer.expected = expected
        try:
            yield batch
        finally:
            try:
                batch.flush()
                if expected is not None:
                    self._writer.unlink(expected.context_id, expected.never_came(), self._indexer.named)
            finally:
                self._batch = None
                self._expected = self._indexer.expected = None
                if executor is not None:
                    executor.shutdown()

    @property
    def batching(self) -> bool:
        """Whether events are applied in a batch (``batched``) now."""
        return self._batch is not None

    def apply(self, ref: ObjectRef, sequencer: str | None) -> DocumentStatus | None:
        """The file ``ref`` names as it now is, recorded: indexed, unchanged, or removed when it is gone
        (None: the key names no context, or no file that ever had a record). In a batch, a change is
        queued and its record answered as it will be until committed (``pending``)."""
        batch = self._batch
        if batch is not None:
            batch.ready_for(ref.key)
        planned = self.plan(ref, sequencer)
        if isinstance(planned, DocumentStatus) and planned.status == "unchanged" and self._expected:
            self._expected.kept(ref.key)
        if planned is None or isinstance(planned, DocumentStatus):
            return planned
        return batch.add(planned) if batch is not None else self.commit([planned])[0]

    def plan(self, ref: ObjectRef, sequencer: str | None) -> Change | DocumentStatus | None:
        """What the event asks of the file: a ``Change`` to commit, or the record that answers it
        already (an older event arriving late, an ``unchanged`` file); None when there is nothing."""
        context_id = context_of_key(ref.key)
        if context_id is None:
            return None
        fmt = format_of(ref.key)
        file_key = ref.key[len(f"{CONTEXTS_PREFIX}{context_id}/") :]
        previous = self._record(context_id, file_key)
        if self._expected is not None:  # whatever it becomes, its page is no longer ahead
            self._expected.planned(ref.key, new=previous is None or previous.status == "pending")
        if previous is not None and not later(sequencer, previous.sequencer):
            return previous  # an older event arriving late: the newer one already applied
        # A file of a type that is skipped is only checked for being there (one byte read).
        data = self._objects.read_bytes(ref, self._limits.file_bytes if fmt is not None else 0)
        version = ref.version_id or (ref.etag or "").strip('"') or None
        file = FileRef(context_id, ref.bucket, ref.key, file_key, version or "", self._sources.place(ref.key))
        if data is None:  # gone (or a sidecar ahead of its file): remove what is indexed, if anything
            return (
                None
                if previous is None
                else Change(file, previous, sequencer, NO_FINGERPRINT, status="deleted")
            )
        skipped = skip_reason(ref.key) if fmt is None else self._too_large(data)
        if skipped is not None:  # not a failure: listed, its old chunks (if any) removed
            return Change(file, previous, sequencer, NO_FINGERPRINT, status="skipped", reason=skipped)
        assert fmt is not None
        try:
            return self._indexed(file, fmt, data, previous, sequencer)
        except DocumentSkippedError as nothing:  # only navigation: listed as skipped, its digest kept
            reason = f"the file is {nothing.message}"
            return Change(
                file, previous, sequencer, Fingerprint.of_bytes(data), status="skipped", reason=reason
            )
        except (DocumentRejectedError, ChunkingConfigError) as rejected:
            reason = f"the file {rejected.message}"
            return Change(
                file, previous, sequencer, Fingerprint.of_bytes(data), status="failed", reason=reason
            )

    def _indexed(
        self,
        file: FileRef,
        fmt: DocumentFormat,
        data: bytes,
        previous: DocumentStatus | None,
        sequencer: str | None,
    ) -> Change | DocumentStatus:
        budget = self._indexer.budget()  # one budget from the bytes to the index
        if not data.strip():
            raise DocumentRejectedError("is empty")
        sidecar = self._indexer.sidecar(file)
        chunking = self._chunking.for_key(file.key)
        placed = chunking.model_dump_json() + file.place.fingerprint
        now = Fingerprint(
            _digest(data), _digest(sidecar.data or b""), placed, self._generation_now(file.context_id)
        )
        if unchanged(previous, now):
            assert previous is not None
            record = _status(file, "unchanged", previous.chunks, None, sequencer, now, self.clock)
            self._write([(file.context_id, record)])
            return record
        indexed_before = previous is not None and previous.chunks > 0
        indexed = self._indexer.indexed(file, fmt, data, sidecar.sidecar, chunking, indexed_before, budget)
        return Change(file, previous, sequencer, now, indexed, sidecar)

    def commit(self, changes: list[Change]) -> list[DocumentStatus]:
        """THE WRITE ORDER. The changes written in one order across the stores, their final records last
        (the commit point): until then each file's record is ``pending``, naming every chunk id a retry
        must replace. Files committed together share each step's round trips."""
        writing = [c for c in changes if c.indexed is not None or c.before > 0]
        self._write([(c.file.context_id, c.pending(self.clock)) for c in writing])  # 1. pending
        notes = {  # 2. the index: typed keys before their values, then chunks, deletes and back-links
            c.file.key: self._writer.declare(c.file.context_id, c.sidecar.sidecar, c.sidecar.context_types)
            for c in changes
            if c.sidecar is not None
        }
        refused = self._writer.write([c.write for c in writing])
        if self._expected is not None:  # pages linked ahead that will not come: unlinked before 3.
            outcomes = [
                (c.file.key, c.indexed.title if c.indexed and c.file.key not in refused else None)
                for c in changes
                if c.file.context_id == self._expected.context_id
            ]
            lost = self._expected.committed(outcomes)
            self._writer.unlink(self._expected.context_id, lost, self._indexer.named)
        # Read again after the writes: a first load creates the context's index.
        generations = {
            ctx: self._generation(ctx) for ctx in {c.file.context_id for c in changes if c.indexed}
        }
        finals = [
            self._final(c, notes.get(c.file.key), refused.get(c.file.key), generations) for c in changes
        ]
        self._write([(c.file.context_id, final) for c, final in zip(changes, finals, strict=True)])  # 3.
        return finals

    def _final(
        self, change: Change, note: str | None, refused: str | None, generations: dict[str, str | None]
    ) -> DocumentStatus:
        """A change's final record: what the index now holds of the file, and why."""
        file, sequencer, clock = change.file, change.sequencer, self.clock
        if refused is not None:
            digest = replace(NO_FINGERPRINT, content=change.fingerprint.content)
            return _status(file, "failed", 0, f"the file {refused}", sequencer, digest, clock)
        if change.indexed is None:
            return _status(file, change.status, 0, change.reason, sequencer, change.fingerprint, clock)
        stale = change.previous is not None and is_stale(change.previous, change.fingerprint.generation)
        status, reason = _outcome(change.previous, change.fingerprint, stale, note)
        written = replace(change.fingerprint, generation=generations[file.context_id])
        return _status(file, status, change.chunks, reason, sequencer, written, clock)

    def _generation_now(self, context_id: str) -> str | None:
        """The context's index generation (read once per batch: only a commit can create the index)."""
        if self._batch is None:
            return self._generation(context_id)
        known = self._batch.generations
        if context_id not in known:
            known[context_id] = self._generation(context_id)
        return known[context_id]

    def _record(self, context_id: str, file_key: str) -> DocumentStatus | None:
        """The file's record: the batch's copy of its context's records when it holds them, else read."""
        if self._batch is not None and context_id in self._batch.records:
            return self._batch.records[context_id].get(file_key)
        return self._statuses.get(context_id, file_key)

    def _write(self, records: list[tuple[str, DocumentStatus]]) -> None:
        """Records written: one alone as it is, several a context's batch at a time (and the batch's
        copy of their context's records, when it holds one, kept as written)."""
        if self._batch is not None:
            for context_id, record in records:
                if context_id in self._batch.records:
                    self._batch.records[context_id][record.key] = record
        if len(records) == 1:
            self._statuses.put(*records[0])
            return
        by_context: dict[str, list[DocumentStatus]] = {}
        for context_id, record in records:
            by_context.setdefault(context_id, []).append(record)
        for context_id, batch in by_context.items():
            self._statuses.put_many(context_id, batch)

    def _too_large(self, data: bytes) -> str | None:
        """Bedrock skips a file over its size limit; so do we (the reason names the limit)."""
        if len(data) > self._limits.file_bytes:
            return f"larger than {_size(self._limits.file_bytes)} (the size limit)"
        return None


class Batch:
    """A sync's files committed together (``Ledger.batched``): each is planned (read, parsed, embedded)
    as its event comes and queued; the queue is committed as one (one batch of ``pending`` records, one
    load, one batch of final records) when the next file finds it holding ``files`` files or ``chunks``
    chunks, when an event names a file already queued or committing (that event must read the record
    the first leaves), and at the end (``flush``). A commit that fails leaves its files ``pending`` (a
    retry redoes them) and is told for each (``finished``); nothing else stops the sync.

    With an ``executor`` (``ahead``), a full batch's commit runs there while the next batch is planned:
    the embedder (native code, the GIL released) and the stores' round trips overlap instead of taking
    turns. One commit at a time, in order: a batch's commit starts once the one before it has ended, so
    the stores see the same writes in the same order, and a kill leaves every file as a commit in
    order would (``pending`` until its final record). Each change goes with its page's place in the
    dictionary as it stood when its batch was full (``Change.as_it_stands``), and the writes' record of
    what is not searchable yet is refreshed on the committing thread (``committed``), never beside a
    commit."""

    def __init__(
        self,
        ledger: Ledger,
        files: int,
        chunks: int,
        records: Mapping[str, Mapping[str, DocumentStatus]],
        executor: ThreadPoolExecutor | None = None,
        committed: Callable[[], None] = lambda: None,
    ) -> None:
        self._ledger = ledger
        self._files, self._chunks = files, chunks
        self.records = {context_id: dict(known) for context_id, known in records.items()}
        """Each context's records by file key, for a caller that read them all (``Ledger.batched``)."""
        self._queued: dict[str, Change] = {}
        self._executor = executor
        self._committed = committed
        self._committing: tuple[Future[None], frozenset[str], bool] | None = None
        """The commit in flight: its future, its files' keys and whether it declares sidecar key types."""
        self._lock = threading.Lock()
        self._finished: list[tuple[str, DocumentStatus | Exception]] = []
        self.generations: dict[str, str | None] = {}
        """The index generation of each context the batch read (until the next commit)."""

    def __contains__(self, key: object) -> bool:
        return key in self._queued or (self._committing is not None and key in self._committing[1])

    def ready_for(self, key: str) -> None:
        """Before an event of ``key`` is planned: a change of it that is queued commits first, and one
        committing ends first (the event reads the record it leaves), as does a commit that declares
        typed sidecar keys (a sidecar read next types its values by them)."""
        if key in self._queued:
            self.flush()
        elif self._committing is not None and (key in self._committing[1] or self._committing[2]):
            self._wait()

    def add(self, change: Change) -> DocumentStatus:
        """Queue ``change`` (what a full batch holds is committed first); its record as it stands until
        its batch commits: ``pending``."""
        if len(self._queued) >= self._files or sum(c.chunks for c in self._queued.values()) >= self._chunks:
            self._hand_off()
        self._queued[change.file.key] = change
        return change.pending(self._ledger.clock)

    def flush(self) -> None:
        """Commit what is queued, and wait for it: each file's final record (or why the commit failed)
        is ``finished``."""
        self._hand_off()
        self._wait()

    def finished(self) -> list[tuple[str, DocumentStatus | Exception]]:
        """The files committed (by key) since the last call, each with its final record or the error
        that left it ``pending``, in the order they were committed."""
        with self._lock:
            done, self._finished = self._finished, []
        return done

    def _hand_off(self) -> None:
        """The queue's commit started (after the one in flight has ended): here, or on the executor."""
        self._wait()
        changes, self._queued = list(self._queued.values()), {}
        self.generations.clear()
        if not changes:
            return
        if self._executor is None:
            self._commit(changes)
            return
        changes = [change.as_it_stands() for change in changes]
        declares = any(c.sidecar is not None and c.sidecar.sidecar.typed for c in changes)
        keys = frozenset(c.file.key for c in changes)
        self._committing = (self._executor.submit(self._commit, changes), keys, declares)

    def _wait(self) -> None:
        """The commit in flight ended (it tells its own failure in ``finished``; what fails after it, the
        refresh, is raised here once). Interrupted (Ctrl-C), it is still in flight: waited for again."""
        if self._committing is not None:
            error = self._committing[0].exception()
            self._committing = None
            if error is not None:
                raise error

    def _commit(self, changes: list[Change]) -> None:
        try:
            finals: list[DocumentStatus | Exception] = [*self._ledger.commit(changes)]
        except Exception as error:  # the files stay pending: each is told why
            finals = [error] * len(changes)
        with self._lock:
            self._finished += [(c.file.key, final) for c, final in zip(changes, finals, strict=True)]
        self._committed()


def _status(
    file: FileRef,
    status: FileStatus,
    chunks: int,
    reason: str | None,
    sequencer: str | None,
    fingerprint: Fingerprint,
    clock: Callable[[], datetime],
) -> DocumentStatus:
    """A file's record (written by ``Ledger._write``)."""
    return DocumentStatus(
        key=file.relative_key,
        status=status,
        version=file.version or None,
        chunks=chunks,
        reason=reason,
        updated_at=iso(clock()),
        content_hash=fingerprint.content,
        sidecar_hash=fingerprint.sidecar,
        chunking=fingerprint.chunking,
        sequencer=sequencer,
        generation=fingerprint.generation,
    )


def _outcome(
    previous: DocumentStatus | None, now: Fingerprint, stale: bool, note: str | None
) -> tuple[FileStatus, str | None]:
    """A file's status and reason once its chunks are written: ``updated`` when it had chunks before,
    ``metadata only`` when only its sidecar changed, ``indexed again`` when its old index was replaced."""
    replaced = previous is not None and previous.chunks > 0 and previous.status != "pending"
    same_text = previous is not None and Fingerprint.of(previous).same_text(now)
    reason = METADATA_ONLY if replaced and same_text else None
    reason = REINDEXED if stale else reason
    return ("updated" if replaced else "indexed"), (
        f"{reason}; {note}" if reason and note else reason or note
    )


def _size(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MB" if limit % mib == 0 else f"{limit:,} bytes"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
