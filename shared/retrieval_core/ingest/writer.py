"""The writer: what files change in the index, written through the loader (``ports.ItemSink``: rows in
DynamoDB, then documents in OpenSearch, per loader batch), with their back-links, and made searchable
when a reader needs it.

One ``write`` takes any number of files' changes (a file's new chunks and the deletes of the ids its
earlier version had past them; a removed file is all deletes) as one load, so files written together
share its bulk requests and row batches. Then the back-links: the chunks written before a page that
name its title gain its mention (``documents/backlinks.py``), found by one search and in the record
of what was written but is not searchable yet (``UnsearchedChunks``). A chunk the index refuses fails
its file alone (its chunks removed again); entries not confirmed stop the write
(``IngestIncompleteError``: the ledger's ``pending`` records stay, and a retry replaces them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..documents.backlinks import (
    BACKLINKS_PER_PAGE,
    UnsearchedChunks,
    backlink_names,
    backlinked,
    is_page_mention,
    without_page_mention,
)
from ..documents.chunk_items import FileRef
from ..documents.entities import entity_id_of
from ..documents.name_dictionary import NameIndex, fold
from ..documents.sidecar import Sidecar
from ..loading.parse import Delete, Upsert
from ..models.item import Item
from ..models.limits import LIMITS
from ..models.metadata import MetadataSchema
from ..models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from ..ports import ContextFieldDeclarations, NamedEntity, NamingChunks
from .errors import IngestIncompleteError
from .ports import ItemSink

UNLINKED_PER_PAGE = 10_000
"""Chunks mentioning a page that never came that its unlinking reads at most (a search's largest page)."""


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file's change to the index: ``items`` (entry N is chunk N), the ids past them up to
    ``indexed`` (the chunks its earlier version had) deleted, and its page's ``title`` linked back
    against ``known`` (the dictionary as the file left it)."""

    file: FileRef
    items: list[Item]
    indexed: int
    title: str | None = None
    known: NameIndex | None = None
    linked_ahead: bool = False
    """Every chunk a search could find naming its title mentions its page already (a sync's
    ``ExpectedPages.linked_ahead``): the title's back-link search is left out."""

    @property
    def deletes(self) -> list[Delete]:
        """The ids its earlier version had past its chunks now (an overwrite leaves no stale chunk)."""
        return _deletes(self.file, range(len(self.items), self.indexed))


class IndexWriter:
    def __init__(
        self,
        *,
        sink: ItemSink,
        naming: NamingChunks | None,
        fields: ContextFieldDeclarations | None,
        metadata: MetadataSchema,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sink = sink
        self._naming = naming
        self._fields = fields
        self._metadata = metadata
        self._unsearched = UnsearchedChunks(monotonic)
        self._deferring = False
        self._capped = False
        """A chunk re-written here reached the mention cap: a mention given ahead may have been cut,
        so no title's search is left out any more (``FileWrite.linked_ahead``)."""

    @contextmanager
    def deferred_refresh(self) -> Iterator[None]:
        """Writes inside are made searchable when a reader needs them, not after each: when the record
        of unsearched chunks is full or old (``searchable_when_due``), and at the end."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False
            self._searchable(self._unsearched.contexts())

    def searchable_when_due(self) -> None:
        """What was written made searchable: at once, or when due while deferred."""
        self._searchable(self._unsearched.due() if self._deferring else self._unsearched.contexts())

    def _searchable(self, contexts: set[str]) -> None:
        if contexts:
            self._sink.refresh(contexts)
            self._unsearched.searchable()

    def declare(self, context_id: str, sidecar: Sidecar, context_types: MetadataSchema) -> str | None:
        """Typed sidecar values declare their keys' types for the context (before the values are
        indexed), so a range filter applies with no declaration of its own; the report's line when one
        cannot (the pool model, or a key the context's index already maps otherwise)."""
        if self._fields is None:
            return sidecar.undeclared(self._metadata)
        new = {n: t for n, t in sidecar.typed.items() if n not in self._metadata and n not in context_types}
        return sidecar.retyped(self._fields.declare(context_id, new)) if new else None

    def write(self, writes: list[FileWrite]) -> dict[str, str]:
        """The files' changes as one load, then their back-links. Returns why the index refused a file
        (by its key; its chunks removed again): the others are written."""
        entries: list[Upsert | Delete] = []
        owners: list[tuple[FileWrite, int]] = []  # an upsert's position -> its file and chunk position
        for write in writes:
            for position, item in enumerate(write.items):
                entries.append(Upsert(len(owners), item))
                owners.append((write, position))
            entries += write.deletes
        report = self._sink.load(entries, refresh=False) if entries else None
        for write in writes:
            self._unsearched.written(write.file.context_id, deleted=[d.id for d in write.deletes])
        if report is not None and (report.unwritten or report.stopped):
            unwritten = set(report.unwritten)
            ids = {w.file.key: {*(i.id for i in w.items), *(d.id for d in w.deletes)} for w in writes}
            keys = sorted(key for key, written in ids.items() if written & unwritten)
            raise IngestIncompleteError(
                f"{len(report.unwritten)} chunks of {', '.join(keys)} were not written"
            )
        refused: dict[str, str] = {}
        for error in report.errors if report is not None else []:
            write, position = owners[error.line]  # an upsert's error names its position
            refused.setdefault(
                write.file.key, f"has a chunk the index refused (chunk {position}: {error.message})"
            )
        self._unwrite([w for w in writes if w.file.key in refused])
        kept = [w for w in writes if w.file.key not in refused]
        for write in kept:
            self._unsearched.written(write.file.context_id, write.items)
        self._link_back(kept)
        return refused

    def _unwrite(self, writes: list[FileWrite]) -> None:
        """The chunks of files the index refused removed again (a file is all its chunks or none)."""
        deletes = [d for w in writes for d in _deletes(w.file, range(len(w.items)))]
        if deletes:
            self._sink.load(deletes, refresh=False)
        for write in writes:
            self._unsearched.written(write.file.context_id, deleted=[item.id for item in write.items])

    def _link_back(self, writes: Iterable[FileWrite]) -> None:
        """The chunks indexed before each page that name its title now mention it: those a search finds,
        and those written since the last refresh (their newest version is the record's, so a chunk two
        pages link gets both). One load for all the files' back-links."""
        if self._naming is None:
            return
        pages = [
            (write.file.context_id, entry, backlink_names(entry, write.known), write.linked_ahead)
            for write in writes
            if write.title is not None and write.known is not None
            for entry in [
                NamedEntity(entity_id_of(write.file.context_id, write.title), write.title, PAGE_ENTITY_TYPE)
            ]
        ]
        # A title linked ahead everywhere a search could find it is not searched for (nothing to find).
        asked = [(c, e, [] if ahead and self._only_title(e, n) else n) for c, e, n, ahead in pages]
        linked: dict[str, Item] = {}
        for (context_id, entry, names, _), searched in zip(pages, self._searched(asked), strict=True):
            # What the search found, but the chunks written since the last refresh: their newest
            # version is the record's (an earlier page of this batch may have just re-linked one).
            recorded = self._unsearched.naming(context_id, names, entry)
            sources = [*recorded, *(s for s in searched if s.get("id") not in self._unsearched)]
            for item in backlinked(sources, entry, names)[:BACKLINKS_PER_PAGE]:
                linked[item.id] = self._noted(item)
                self._unsearched.written(item.context_id, [item])
        if not linked:
            return
        report = self._sink.load([Upsert(n, item) for n, item in enumerate(linked.values())], refresh=False)
        if report.unwritten or report.stopped:
            raise IngestIncompleteError(f"{len(report.unwritten)} back-links were not written")

    def _only_title(self, entry: NamedEntity, names: list[str]) -> bool:
        """Whether ``names`` (what a page answers to) are its title alone, and no chunk re-written here
        reached the mention cap (which may have cut a mention given ahead)."""
        return not self._capped and {fold(name) for name in names} <= {fold(entry.name)}

    def _noted(self, item: Item) -> Item:
        """``item``, a chunk re-written here; one at the mention cap noted (``_capped``)."""
        self._capped |= len(item.mentions) >= LIMITS.mentions
        return item

    def unlink(
        self,
        context_id: str,
        pages: list[NamedEntity],
        named: Callable[[str, str, NamedEntity], list[dict[str, str]]],
    ) -> None:
        """The mentions of ``pages`` that a sync gave chunks ahead of them (``documents.expected_pages``)
        removed again, unless a chunk is about the page (another file made it a page after all): the
        chunks mentioning it are those the record holds and those a search finds (a search a page: a
        rare path, a page's file failed). A mention of the page's id that the chunk's text gives without
        the page (``named``: a text's mentions without the page, ``Indexer.named``; an extracted name
        the page's replaced) takes its place."""
        if not pages or self._naming is None:
            return
        unlinked: dict[str, Item] = {}
        for page in pages:
            recorded = self._unsearched.mentioning(context_id, page)
            searched = self._naming.chunks_mentioning(context_id, page, UNLINKED_PER_PAGE)
            sources = [*recorded, *(s for s in searched if s.get("id") not in self._unsearched)]
            if any(_about(source, page) for source in sources):
                continue
            for source in sources:
                held = unlinked.get(str(source.get("id")))
                current = held.model_dump(mode="json", exclude_none=True) if held else source
                mentions = current.get("mentions", [])
                if not any(is_page_mention(m, page) for m in mentions):
                    continue
                kept = without_page_mention(mentions, page, named(context_id, str(current["text"]), page))
                item = {key: value for key, value in current.items() if value is not None}
                unlinked[str(source["id"])] = self._noted(Item.model_validate(item | {"mentions": kept}))
        if not unlinked:
            return
        report = self._sink.load([Upsert(n, item) for n, item in enumerate(unlinked.values())], refresh=False)
        if report.unwritten or report.stopped:
            raise IngestIncompleteError(f"{len(report.unwritten)} unlinked chunks were not written")
        for chunk in unlinked.values():
            self._unsearched.written(chunk.context_id, [chunk])

    def _searched(self, pages: list[tuple[str, NamedEntity, list[str]]]) -> list[list[dict[str, Any]]]:
        """The search's chunks naming each page, one round trip per context for all its pages."""
        assert self._naming is not None
        found: list[list[dict[str, Any]]] = [[] for _ in pages]
        for context_id in dict.fromkeys(context for context, _, _ in pages):
            mine = [n for n, (context, _, names) in enumerate(pages) if context == context_id and names]
            if not mine:
                continue  # no title to search for (none, or each linked ahead): no round trip
            asked = [(pages[n][2], pages[n][1]) for n in mine]
            for n, chunks in zip(
                mine, self._naming.chunks_naming(context_id, asked, BACKLINKS_PER_PAGE), strict=True
            ):
                found[n] = chunks
        return found


def _about(source: dict[str, Any], page: NamedEntity) -> bool:
    """Whether the stored chunk is one of the page's own (it mentions the page ``about``)."""
    return any(
        m.get("role") == ABOUT_ROLE and m.get("entity_id") == page.entity_id
        for m in source.get("mentions", [])
    )


def _deletes(file: FileRef, positions: Iterable[int]) -> list[Delete]:
    """Deletes of the file's chunks at ``positions``."""
    return [Delete(file.chunk_id(p)) for p in positions]
