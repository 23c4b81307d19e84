"""``Loader``: validated items into the search store and the lineage rows, idempotently and in batches,
through the write ports (``ports.ItemWriter``, ``ports.LineageWriter``; OpenSearch and DynamoDB here).

Per chunk: embed what has no embedding, prepare the index of a context written for the first time,
delete the rows a changed item no longer owns, write the rows it owns, write its card (with the new
manifest) last, then index the documents. A chunk that fails is reported item by item;
re-running the same file repairs the state, because every write is a put of a whole row keyed by what
the item is.

A delete line removes the rows the item's manifest names and every row of its own lineage partition,
then its document, and its card last: until the card is gone a re-run still knows what to remove.
Lines apply in file order (a chunk runs its upserts and deletes in the order they appear).

A backend that stops answering (``BackendUnavailableError``) stops the load at once: no further chunk
is sent, and every item not written, the failed chunk's and all later ones, is named in the report
with the cause (``LoadReport.stopped``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby
from typing import Protocol

from ..errors import BackendUnavailableError, IncompleteBatchError
from ..models.metadata import MetadataSchema
from ..models.text_window import token_counter, window_of
from ..ports import Embedder, ItemKey, ItemWriter, LineageWriter, WriteRefusal
from .lines import OversizedLine
from .metadata_keys import PoolKeyBudget
from .parse import DeleteLine, LineError, ParsedLine, checked, parse_lines

CHUNK_SIZE = 256


class LoadProgress(Protocol):
    """Told how many lines each step finished (the CLI draws a bar from it; the ingest function has none)."""

    def advance(self, count: int) -> None: ...


@dataclass
class LoadReport:
    """``loaded`` counts every item written; ``updated`` those of them that replaced an item already in
    the tables. ``deleted`` counts removed items, ``absent`` deletes of ids that were not there."""

    loaded: int = 0
    updated: int = 0
    deleted: int = 0
    absent: int = 0
    errors: list[LineError] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    stopped: str | None = None
    """Why the load stopped early (a backend became unavailable), or None when every line was tried."""
    past_window: list[str] = field(default_factory=list)
    """Items embedded here whose text passes the embedder's window (counted with its own tokenizer where
    it is local, else by ``estimate_tokens``, which overcounts): their vector leaves the rest out, so
    vector search cannot find what the end says. Loaded all the same; split them (documents are chunked
    within the window)."""

    @property
    def ok(self) -> bool:
        return not self.errors and not self.unwritten and self.stopped is None

    def summary(self) -> str:
        # A reload replaces every item: "329 loaded (0 new, 329 replaced)", never "329 (329 updated)".
        parts = [f"{self.loaded} items loaded ({self.loaded - self.updated} new, {self.updated} replaced)"]
        if self.deleted or self.absent:
            parts.append(f"{self.deleted} deleted ({self.absent} deletes named ids that were not there)")
        if self.errors:
            parts.append(f"{len(self.errors)} bad lines skipped")
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
        chunk_size: int = CHUNK_SIZE,
        metadata: MetadataSchema | None = None,
    ) -> None:
        self._items = items
        self._lineage = lineage
        self._embedder = embedder
        self._keys = key_budget
        self._chunk_size = chunk_size
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
        self, entries: Iterable[ParsedLine | DeleteLine], *, progress: LoadProgress | None = None
    ) -> LoadReport:
        """Load items already built in memory (a document's chunks) and apply deletes, in order, as a
        file of their lines would load: an item whose metadata contradicts its declared type is an error
        of its entry, reported by the entry's number."""
        return self._load((checked(entry, self._metadata) for entry in entries), progress)

    def _load(
        self, entries: Iterable[ParsedLine | DeleteLine | LineError], progress: LoadProgress | None
    ) -> LoadReport:
        report = LoadReport()
        touched: set[str] = set()
        chunk: list[ParsedLine | DeleteLine] = []
        for parsed in entries:
            if isinstance(parsed, LineError):
                report.errors.append(parsed)
                if progress:
                    progress.advance(1)
                continue
            if report.stopped:
                report.unwritten.append(_id_of(parsed))
                continue
            chunk.append(parsed)
            if len(chunk) >= self._chunk_size:
                touched |= self._load_chunk(chunk, report, progress)
                chunk = []
        if chunk:
            touched |= self._load_chunk(chunk, report, progress)
        if not report.stopped:
            try:
                self._items.refresh(touched)
            except BackendUnavailableError as error:
                report.stopped = error.message
        return report

    def _load_chunk(
        self, chunk: list[ParsedLine | DeleteLine], report: LoadReport, progress: LoadProgress | None
    ) -> set[str]:
        """Apply one chunk; returns the contexts whose index it wrote to."""
        # A later line with the same id replaces an earlier one, as a reload would; what remains runs
        # in file order, one run of consecutive upserts or deletes at a time.
        latest = sorted({_id_of(parsed): parsed for parsed in chunk}.values(), key=lambda p: p.line)
        # A context's index is created on its first write, from the one mapping.
        contexts = {p.context_id if isinstance(p, DeleteLine) else p.item.context_id for p in latest}
        try:
            self._items.prepare(contexts)
        except BackendUnavailableError as error:
            report.stopped = error.message
        for is_delete, grouped in groupby(latest, key=lambda p: isinstance(p, DeleteLine)):
            run = list(grouped)
            if report.stopped:
                report.unwritten += [_id_of(p) for p in run]
            elif is_delete:
                self._delete([p for p in run if isinstance(p, DeleteLine)], report)
            else:
                self._upsert([p for p in run if isinstance(p, ParsedLine)], report)
        if progress:
            progress.advance(len(chunk))
        return contexts

    def _upsert(self, parsed_lines: list[ParsedLine], report: LoadReport) -> None:
        """Rows and cards first, the document last: every reader reaches an item through its document
        (lineage and graph answers keep only items whose document exists), so no reader sees rows
        without a document; a load stopped in between leaves rows that the re-run overwrites."""
        try:
            if self._keys is not None:
                refused = self._keys.admit(parsed_lines)
                report.errors += refused
                parsed_lines = [p for p in parsed_lines if p.line not in {e.line for e in refused}]
            embeddings = self._embeddings(parsed_lines, report)
            items = [p.item for p in parsed_lines if p.item.id in embeddings]
            existed = self._lineage.write(items)
            refusals = self._items.index([(item, embeddings[item.id]) for item in items])
            rejected = self._settle(refusals, parsed_lines, existed, report)
        except (IncompleteBatchError, BackendUnavailableError) as error:
            if isinstance(error, BackendUnavailableError):
                report.stopped = error.message
            items = [p.item for p in parsed_lines]
            existed, rejected = set(), [item.id for item in items]
            report.unwritten += rejected
        report.loaded += len(items) - len(rejected)
        report.updated += len(existed - set(rejected))

    def _settle(
        self,
        refusals: list[WriteRefusal],
        parsed_lines: list[ParsedLine],
        existed: set[str],
        report: LoadReport,
    ) -> list[str]:
        """Report what the index did not take; returns those ids. A final refusal (the index refused
        the document itself) is a rejected line, never retried; the rows just written for a new item
        are removed again, so nothing is left that no re-run could complete."""
        lines = {p.item.id: p for p in parsed_lines}
        final = [r for r in refusals if r.final]
        report.errors += [LineError(lines[r.item_id].line, "(item)", r.reason) for r in final]
        report.unwritten += [r.item_id for r in refusals if not r.final]
        orphans = [lines[r.item_id].item for r in final if r.item_id not in existed]
        self._lineage.discard(orphans)
        return [r.item_id for r in refusals]

    def _delete(self, deletes: list[DeleteLine], report: LoadReport) -> None:
        doomed = [ItemKey(d.context_id, d.item_id) for d in deletes]
        try:
            # Rows first, the document next, the card (which lists the rows) last.
            carded = self._lineage.delete_links(doomed)
            failed = self._items.delete(doomed)
            self._lineage.delete_cards([k for k in doomed if k.item_id in carded and k.item_id not in failed])
        except IncompleteBatchError:
            carded, failed = set(), [d.item_id for d in deletes]
        except BackendUnavailableError as error:
            report.stopped = error.message
            carded, failed = set(), [d.item_id for d in deletes]
        report.unwritten += failed
        report.deleted += len(carded - set(failed))
        report.absent += len({d.item_id for d in deletes} - carded - set(failed))

    def _embeddings(self, parsed_lines: list[ParsedLine], report: LoadReport) -> dict[str, list[float]]:
        vectors: dict[str, list[float]] = {}
        missing = [p for p in parsed_lines if p.item.embedding is None]
        for parsed in parsed_lines:
            given = parsed.item.embedding
            if given is None:
                continue
            if len(given) != self._embedder.dimension:
                report.errors.append(
                    LineError(
                        parsed.line,
                        "embedding",
                        f"has {len(given)} dimensions, the index expects {self._embedder.dimension}",
                    )
                )
                continue
            vectors[parsed.item.id] = given
        if missing:
            window = window_of(self._embedder.name)
            count = token_counter(self._embedder)
            report.past_window += [p.item.id for p in missing if count(p.item.text) > window]
            computed = self._embedder.embed([p.item.text for p in missing])
            vectors.update({p.item.id: v for p, v in zip(missing, computed, strict=True)})
        return vectors


def _id_of(parsed: ParsedLine | DeleteLine) -> str:
    return parsed.item_id if isinstance(parsed, DeleteLine) else parsed.item.id
