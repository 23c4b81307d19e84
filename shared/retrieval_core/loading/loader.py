"""``Loader``: validated items into the search store and the lineage rows, idempotently and in batches,
through the write ports (``ports.ItemWriter``, ``ports.LineageWriter``; OpenSearch and DynamoDB here).

Per batch: embed what has no embedding, prepare the index of a context written for the first time,
delete the rows a changed item no longer owns and write the rows it owns (together: distinct keys),
write its card (with the new manifest) last, then index the documents. A batch is read and embedded
while the one before it is written (a vector a line turns out not to need, past a key budget, is
embedded in vain); the writes go one batch after another. A batch that fails is reported item by item;
re-running the same file repairs the state, because every write is a put of a whole row
keyed by what the item is.

A delete line removes the rows the item's manifest names and every row of its own lineage partition,
then its document, and its card last: until the card is gone a re-run still knows what to remove.
Lines apply in file order (a batch runs its upserts and deletes in the order they appear).

A backend that stops answering (``BackendUnavailableError``) stops the load at once: no further batch
is sent, and every item not written, the failed batch's and all later ones, is named in the report
with the cause (``LoadReport.stopped``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import groupby
from typing import Protocol

from ..backend_calls import concurrently
from ..errors import BackendUnavailableError, IncompleteBatchError
from ..models.metadata import MetadataSchema
from ..models.text_window import token_counter, window_of
from ..ports import Embedder, ItemKey, ItemWriter, LineageWriter, WriteRefusal
from .lines import OversizedLine
from .metadata_keys import PoolKeyBudget
from .parse import Delete, LineError, Upsert, checked, parse_lines

BATCH_SIZE = 256
LISTED_ERRORS = 1000
"""Rejected lines a report lists; past them it counts (``LoadReport.omitted_errors``), so a file of a
million bad lines does not hold a million errors in memory."""


class LoadProgress(Protocol):
    """Told how many lines each step finished (the CLI draws a bar from it; the ingest function has none)."""

    def advance(self, count: int) -> None: ...


@dataclass(frozen=True, slots=True)
class LoadReport:
    """``loaded`` counts every item written; ``updated`` those of them that replaced an item already in
    the tables. ``deleted`` counts removed items, ``absent`` deletes of ids that were not there.

    A value: each step of a load returns the report of what it did, and the load's report is their
    sum (``combined``), so no step reaches into another's counts (frozen; its lists are built once,
    when it is made, and never appended to)."""

    loaded: int = 0
    updated: int = 0
    deleted: int = 0
    absent: int = 0
    errors: list[LineError] = field(default_factory=list)
    """The first ``LISTED_ERRORS`` rejected lines, in the order the load met them (a batch's own errors
    after the bad lines read while it filled)."""
    omitted_errors: int = 0
    """Rejected lines past those listed: counted, not kept."""
    unwritten: list[str] = field(default_factory=list)
    stopped: str | None = None
    """Why the load stopped early (a backend became unavailable), or None when every line was tried."""
    past_window: list[str] = field(default_factory=list)
    """Items embedded here whose text passes the embedder's window (counted with its own tokenizer where
    it is local, else by ``estimate_tokens``, which overcounts): their vector leaves the rest out, so
    vector search cannot find what the end says. Loaded all the same; split them (documents are chunked
    within the window)."""

    @classmethod
    def combined(cls, parts: Iterable[LoadReport]) -> LoadReport:
        """The reports of consecutive steps as one: counts added, lists joined in order, the first stop
        (nothing runs after a stop, so there is at most one)."""
        steps = list(parts)
        return cls(
            loaded=sum(p.loaded for p in steps),
            updated=sum(p.updated for p in steps),
            deleted=sum(p.deleted for p in steps),
            absent=sum(p.absent for p in steps),
            errors=[e for p in steps for e in p.errors],
            omitted_errors=sum(p.omitted_errors for p in steps),
            unwritten=[i for p in steps for i in p.unwritten],
            stopped=next((p.stopped for p in steps if p.stopped is not None), None),
            past_window=[i for p in steps for i in p.past_window],
        ).listing(LISTED_ERRORS)

    def listing(self, room: int) -> LoadReport:
        """This report with at most ``room`` errors listed, the rest counted."""
        omitted = self.omitted_errors + len(self.errors[room:])
        return replace(self, errors=self.errors[:room], omitted_errors=omitted)

    @property
    def rejected(self) -> int:
        """Every rejected line, listed or not."""
        return len(self.errors) + self.omitted_errors

    @property
    def ok(self) -> bool:
        return not self.errors and not self.unwritten and self.stopped is None

    def summary(self) -> str:
        # A reload replaces every item: "329 loaded (0 new, 329 replaced)", never "329 (329 updated)".
        parts = [f"{self.loaded} items loaded ({self.loaded - self.updated} new, {self.updated} replaced)"]
        if self.deleted or self.absent:
            parts.append(f"{self.deleted} deleted ({self.absent} deletes named ids that were not there)")
        if self.rejected:
            parts.append(f"{self.rejected} bad lines skipped")
        if self.unwritten:
            # A stopped bulk request may still have been applied: these are the items not confirmed.
            parts.append(f"{len(self.unwritten)} items not written or not confirmed (re-run to repair)")
        if self.stopped:
            parts.append("stopped early")
        if self.past_window:
            parts.append(
                f"{len(self.past_window)} items longer than the embedder's window (their vectors see only "
                f"the start; e.g. {self.past_window[0]})"
            )
        return ", ".join(parts)


class Loader:
    """Writes through ports: ``items`` (the search store's documents), ``lineage`` (the rows graph and
    lineage reads use) and, when contexts share one index, ``key_budget`` (its metadata-key cap)."""

    def __init__(
        self,
        *,
        items: ItemWriter,
        lineage: LineageWriter,
        embedder: Embedder,
        key_budget: PoolKeyBudget | None = None,
        batch_size: int = BATCH_SIZE,
        metadata: MetadataSchema | None = None,
    ) -> None:
        self._items = items
        self._lineage = lineage
        self._embedder = embedder
        self._keys = key_budget
        self._batch_size = batch_size
        self._metadata = dict(metadata or {})

    def load_lines(
        self,
        lines: Iterable[str | bytes | OversizedLine],
        *,
        context_id: str | None = None,
        progress: LoadProgress | None = None,
        first_line: int = 1,
    ) -> LoadReport:
        """Load JSON Lines: each line parsed into an item or a delete (``parse_lines``), then loaded as
        ``load`` loads entries; a line that cannot be read is reported by its number and skipped."""
        parsed = parse_lines(lines, context_id=context_id, first_line=first_line, metadata=self._metadata)
        return self._load(parsed, progress)

    def load(
        self,
        entries: Iterable[Upsert | Delete],
        *,
        progress: LoadProgress | None = None,
        refresh: bool = True,
    ) -> LoadReport:
        """Load items already built in memory (a document's chunks) and apply deletes, in order, as a
        file of their lines would load: an item whose metadata contradicts its declared type is an error
        of its entry, reported by the entry's number. ``refresh=False``: the writes are not made
        searchable here (the caller refreshes when a reader needs them, ``refresh``)."""
        return self._load((checked(entry, self._metadata) for entry in entries), progress, refresh)

    def refresh(self, context_ids: Iterable[str]) -> None:
        """Make what was written to these contexts searchable."""
        self._items.refresh(context_ids)

    def _load(
        self,
        entries: Iterable[Upsert | Delete | LineError],
        progress: LoadProgress | None,
        refresh: bool = True,
    ) -> LoadReport:
        """Entries in batches of ``batch_size``; a line error is reported where it stands (the reports
        keep file order); after a stop, every later entry is named unwritten.

        A batch is written (on a worker thread) while the next one is read and embedded here, so a load
        costs about the longer of its writes and its reading, not their sum; the writes themselves stay
        one batch after another, in file order."""
        steps = _Steps()
        touched: set[str] = set()
        remaining = iter(entries)
        batches = _batches(remaining, self._batch_size)
        staged = self._staged(next(batches, None))
        while staged is not None:
            steps.add(LoadReport(errors=staged.errors))
            if progress and staged.errors:
                progress.advance(len(staged.errors))
            touched |= staged.contexts
            read = staged.read
            written, staged = concurrently(
                partial(self._load_batch, staged), lambda: self._staged(next(batches, None))
            )
            steps.add(written)
            if progress:
                progress.advance(read)
            if steps.stopped is not None:
                batches.close()  # lets go of the batch it last read
                first = [] if staged is None else [*staged.latest]
                if staged is not None:
                    steps.add(LoadReport(errors=staged.errors))
                staged = None
                self._name_the_rest(first, remaining, steps, progress)
        steps.add(self._refreshed(touched if refresh else set(), steps.stopped))
        return steps.report()

    def _name_the_rest(
        self,
        first: list[Upsert | Delete],
        remaining: Iterator[Upsert | Delete | LineError],
        steps: _Steps,
        progress: LoadProgress | None,
    ) -> None:
        """After a stop: every entry still to come named unwritten, one at a time (only its id is kept,
        so what the load holds does not grow with what is left of the file); bad lines still reported."""
        later = [_id_of(entry) for entry in first]
        first.clear()
        errors: list[LineError] = []
        for entry in remaining:
            if not isinstance(entry, LineError):
                later.append(_id_of(entry))
                continue
            errors.append(entry)
            if progress:
                progress.advance(1)
            if len(errors) >= self._batch_size:
                steps.add(LoadReport(errors=errors))
                errors = []
        steps.add(LoadReport(errors=errors))
        steps.add(LoadReport(unwritten=later))

    def _refreshed(self, touched: set[str], stopped: str | None) -> LoadReport:
        """The written contexts made searchable, unless the load stopped (a stop reports itself)."""
        if stopped is not None:
            return LoadReport()
        try:
            self._items.refresh(touched)
        except BackendUnavailableError as error:
            return LoadReport(stopped=error.message)
        return LoadReport()

    def _staged(self, batch: _Batch | None) -> _Staged | None:
        """What a batch will write, read ahead of its turn: its entries deduplicated (a later line with
        the same id replaces an earlier one, as a reload would), the contexts it writes, and the vectors
        its items lack (one embedder call), or why they could not be made."""
        if batch is None:
            return None
        latest = _last_of_each(batch.entries)
        missing = [p.item for p in latest if isinstance(p, Upsert) and p.item.embedding is None]
        vectors: dict[str, list[float]] = {}
        stopped = None
        try:
            if missing:
                computed = self._embedder.embed([item.embedding_text for item in missing])
                vectors = {item.id: vector for item, vector in zip(missing, computed, strict=True)}
        except BackendUnavailableError as error:
            stopped = error.message
        contexts = {p.context_id if isinstance(p, Delete) else p.item.context_id for p in latest}
        return _Staged(batch.errors, latest, len(batch.entries), contexts, vectors, stopped)

    def _load_batch(self, staged: _Staged) -> LoadReport:
        """Apply one staged batch: what remains runs in file order, one run of consecutive upserts or
        deletes at a time. A context's index is created on its first write, from the one mapping."""
        if staged.stopped is not None:
            return LoadReport(unwritten=[_id_of(p) for p in staged.latest], stopped=staged.stopped)
        steps = [self._prepared(staged.contexts)]
        for is_delete, grouped in groupby(staged.latest, key=lambda p: isinstance(p, Delete)):
            run = list(grouped)
            if any(step.stopped is not None for step in steps):
                steps.append(LoadReport(unwritten=[_id_of(p) for p in run]))
            elif is_delete:
                steps.append(self._delete([p for p in run if isinstance(p, Delete)]))
            else:
                steps.append(self._upsert([p for p in run if isinstance(p, Upsert)], staged.vectors))
        return LoadReport.combined(steps)

    def _prepared(self, contexts: set[str]) -> LoadReport:
        try:
            self._items.prepare(contexts)
        except BackendUnavailableError as error:
            return LoadReport(stopped=error.message)
        return LoadReport()

    def _upsert(self, upserts: list[Upsert], computed: dict[str, list[float]]) -> LoadReport:
        """Rows and cards first, the document last: every reader reaches an item through its document
        (lineage and graph answers keep only items whose document exists), so no reader sees rows
        without a document; a load stopped in between leaves rows that the re-run overwrites."""
        steps: list[LoadReport] = []  # what was settled before a backend fails stays reported
        try:
            if self._keys is not None:
                steps.append(LoadReport(errors=self._keys.admit(upserts)))
                upserts = _without(upserts, steps[-1].errors)
            steps.append(self._vector_checks(upserts))
            embeddings = _embeddings(_without(upserts, steps[-1].errors), computed)
            items = [p.item for p in upserts if p.item.id in embeddings]
            existed = self._lineage.write(items)
            refusals = self._items.index([(item, embeddings[item.id]) for item in items])
        except (IncompleteBatchError, BackendUnavailableError) as error:
            stopped = error.message if isinstance(error, BackendUnavailableError) else None
            unwritten = LoadReport(unwritten=[p.item.id for p in upserts], stopped=stopped)
            return LoadReport.combined([*steps, unwritten])
        rejected = {r.item_id for r in refusals}
        written = LoadReport(loaded=len(items) - len(rejected), updated=len(existed - rejected))
        return LoadReport.combined([*steps, self._settle(refusals, upserts, existed), written])

    def _settle(self, refusals: list[WriteRefusal], upserts: list[Upsert], existed: set[str]) -> LoadReport:
        """Report what the index did not take. A final refusal (the index refused the document itself)
        is a rejected line, never retried; the rows just written for a new item are removed again, so
        nothing is left that no re-run could complete."""
        by_id = {p.item.id: p for p in upserts}
        final = [r for r in refusals if r.final]
        orphans = [by_id[r.item_id].item for r in final if r.item_id not in existed]
        self._lineage.discard(orphans)
        return LoadReport(
            errors=[LineError(by_id[r.item_id].position, "(item)", r.reason) for r in final],
            unwritten=[r.item_id for r in refusals if not r.final],
        )

    def _delete(self, deletes: list[Delete]) -> LoadReport:
        doomed = [ItemKey(d.context_id, d.id) for d in deletes]
        stopped = None
        try:
            # Rows first, the document next, the card (which lists the rows) last.
            carded = self._lineage.delete_links(doomed)
            failed = self._items.delete(doomed)
            self._lineage.delete_cards([k for k in doomed if k.item_id in carded and k.item_id not in failed])
        except (IncompleteBatchError, BackendUnavailableError) as error:
            stopped = error.message if isinstance(error, BackendUnavailableError) else None
            carded, failed = set(), [d.id for d in deletes]
        return LoadReport(
            unwritten=list(failed),
            deleted=len(carded - set(failed)),
            absent=len({d.id for d in deletes} - carded - set(failed)),
            stopped=stopped,
        )

    def _vector_checks(self, upserts: list[Upsert]) -> LoadReport:
        """An embedding given with another dimension than the index's is an error of its line; a text
        to be embedded here past the embedder's window is named (``LoadReport.past_window``)."""
        dimension = self._embedder.dimension
        errors = [
            LineError(p.position, "embedding", f"has {len(given)} dimensions, the index expects {dimension}")
            for p in upserts
            if (given := p.item.embedding) is not None and len(given) != dimension
        ]
        missing = [p.item for p in upserts if p.item.embedding is None]
        if not missing:
            return LoadReport(errors=errors)
        window, count = window_of(self._embedder.name), token_counter(self._embedder)
        past_window = [item.id for item in missing if count(item.text) > window]
        return LoadReport(errors=errors, past_window=past_window)


def _embeddings(upserts: list[Upsert], computed: dict[str, list[float]]) -> dict[str, list[float]]:
    """Every item's vector: its own, or the one embedded for it when its batch was read."""
    return {
        p.item.id: p.item.embedding if p.item.embedding is not None else computed[p.item.id] for p in upserts
    }


@dataclass(frozen=True, slots=True)
class _Batch:
    """A batch of entries and the bad lines read while it filled (those come first in the report)."""

    errors: list[LineError]
    entries: list[Upsert | Delete]


def _batches(entries: Iterable[Upsert | Delete | LineError], size: int) -> Generator[_Batch, None, None]:
    """``entries`` in batches of ``size``; bad lines are let go every ``size`` of them too (with an
    empty batch), so a file of bad lines holds no more than that at once."""
    errors: list[LineError] = []
    held: list[Upsert | Delete] = []
    for entry in entries:
        if isinstance(entry, LineError):
            errors.append(entry)
        else:
            held.append(entry)
        if len(held) >= size or len(errors) >= size:
            yield _Batch(errors, held)
            errors, held = [], []
    if errors or held:
        yield _Batch(errors, held)


@dataclass(frozen=True, slots=True)
class _Staged:
    """A batch read ahead of its writes (``Loader._staged``)."""

    errors: list[LineError]
    latest: list[Upsert | Delete]
    read: int
    """Entries the batch held before deduplication (what the progress bar counts)."""
    contexts: set[str]
    vectors: dict[str, list[float]]
    """The vectors embedded for its items that came without one."""
    stopped: str | None
    """Why those vectors could not be made (the embedder is unavailable): the batch is not written."""


class _Steps:
    """A load's step reports in order, each kept with only the errors the load may still list
    (``LISTED_ERRORS``, the rest counted), so a file of bad lines holds no more than that; joined once,
    at the end (folding them as they come would copy the growing id lists again at every batch)."""

    def __init__(self) -> None:
        self._steps: list[LoadReport] = []
        self._room = LISTED_ERRORS
        self.stopped: str | None = None
        """The first stop among the steps so far (nothing runs after it)."""

    def add(self, step: LoadReport) -> None:
        kept = step.listing(self._room)
        self._steps.append(kept)
        self._room -= len(kept.errors)
        self.stopped = self.stopped if self.stopped is not None else kept.stopped

    def report(self) -> LoadReport:
        return LoadReport.combined(self._steps)


def _without(upserts: list[Upsert], errors: list[LineError]) -> list[Upsert]:
    """``upserts`` but those whose line has an error."""
    failed = {error.line for error in errors}
    return [p for p in upserts if p.position not in failed]


def _id_of(entry: Upsert | Delete) -> str:
    return entry.id if isinstance(entry, Delete) else entry.item.id


def _last_of_each(entries: list[Upsert | Delete]) -> list[Upsert | Delete]:
    """One entry per id, the last one, at the place of that last one (a later line with the same id
    replaces an earlier one, as a reload would)."""
    last = {_id_of(entry): index for index, entry in enumerate(entries)}
    return [entry for index, entry in enumerate(entries) if last[_id_of(entry)] == index]
