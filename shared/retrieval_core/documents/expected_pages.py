"""The pages a sync is about to index, known before their files are: a chunk written earlier in the sync
that names one of them gets its mention at its first write, as the page's back-link would have given it
later (``backlinks.with_page_mention``), so the sync re-writes no chunk (its vector indexed again) for
a page of its own (docs/DOCUMENTS.md, "Pages are entities").

Only a page's title is expected, and only while no file of it has been planned yet: its aliases, a
title the context's dictionary already holds (another entity's, or ambiguous) and pages that other
writers index are back-linked as before. A page expected and never indexed (its file failed, was
skipped, came with another title or never came) has the mentions it was given removed again before its
file's final record is written (``IndexWriter.unlink``), so no chunk is left naming a page that does not
exist while a record says the file is done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..models.page_titles import PAGE_ENTITY_TYPE
from ..ports import NamedEntity
from .backlinks import with_page_mention
from .entities import entity_id_of, written_as_name
from .name_dictionary import MIN_NAME_CHARS, WORD, NameIndex, fold


@dataclass(slots=True)
class _Page:
    entry: NamedEntity
    position: int
    """The place of its first file in the sync: a chunk naming several pages gets their mentions in the
    order their back-links would have added them (the latest page's first)."""
    pending: set[str] = field(default_factory=set)
    """Its files not planned yet (file keys)."""
    planned: set[str] = field(default_factory=set)
    """Its files planned and not committed yet."""
    started: bool = False
    """A file of it was planned: from then on the dictionary speaks for it (another file with the same
    title that comes later changes nothing), so it is no longer linked ahead."""
    indexed: bool = False
    """A file of it was committed with this title."""
    linked: int = 0
    """Chunks given its mention before it was indexed."""
    new: bool = False
    """A file of it was planned with no committed record: a kill may have left chunks of an earlier
    sync mentioning it ahead (the sync's re-run sends it again), so its failure unlinks them too."""
    first: str | None = None
    """The key of its first file planned (the one its chunks ahead were linked before)."""
    missed: bool = False
    """A chunk named it as a name while it was ahead and was written without its mention (the title
    another entity's, or ambiguous, in the dictionary then; or past a chunk's mention cap)."""


class ExpectedPages:
    """One sync's expected pages of one context (``expect``: what its pre-pass read,
    ``retrieval_dev.cli.sync_titles``). Shared by the planning thread (``planned``, ``linked``) and the
    committing one (``committed``), so locked."""

    def __init__(self, context_id: str) -> None:
        self.context_id = context_id
        self._pages: dict[str, _Page] = {}
        self._of_file: dict[str, str] = {}
        self._by_key: dict[str, str | None] = {}
        """Folded title -> its page's entity id; None: two pages fold to it (left to back-links)."""
        self._longest_from: dict[str, int] = {}
        self._lock = threading.Lock()
        self.fresh = False
        """The context had no index when the sync began (``Ledger.batched``): every chunk a search can
        find is one of the sync's own, the sync being its context's only writer while it runs."""

    def expect(self, titles: Mapping[str, str]) -> None:
        """``titles``: each file key the sync will send (in the order it sends them) with the title its
        pre-pass read, before the first is sent."""
        with self._lock:
            for key, title in titles.items():
                self._expect(key, title)

    def _expect(self, key: str, title: str) -> None:
        entry = NamedEntity(entity_id_of(self.context_id, title), title, PAGE_ENTITY_TYPE)
        page = self._pages.setdefault(entry.entity_id, _Page(entry, len(self._of_file)))
        page.pending.add(key)
        self._of_file[key] = entry.entity_id
        folded = fold(title)
        if len(title) < MIN_NAME_CHARS or len(folded) < MIN_NAME_CHARS:
            return  # the dictionary keeps no such name: no back-link would find it
        held = self._by_key.setdefault(folded, entry.entity_id)
        if held != entry.entity_id:
            self._by_key[folded] = None
        first, words = folded.partition(" ")[0], folded.count(" ") + 1
        self._longest_from[first] = max(words, self._longest_from.get(first, 0))

    def __len__(self) -> int:
        return len(self._pages)

    def ahead(self, entry: NamedEntity) -> bool:
        """Whether ``entry`` is a page of the sync not indexed yet (nor ever, if it never comes): the
        dictionary's reads of the index leave it out, as they would without the mentions given ahead."""
        with self._lock:
            page = self._pages.get(entry.entity_id) if entry.type == PAGE_ENTITY_TYPE else None
            return page is not None and not page.indexed

    def planned(self, key: str, *, new: bool) -> None:
        """A file of the sync is being planned (whatever becomes of it): its page is no longer ahead (as
        the first file of it to be planned adds it to the dictionary, if indexed).
        ``new``: it has no committed record (none, or ``pending``)."""
        with self._lock:
            entity_id = self._of_file.get(key)
            if entity_id is not None:
                page = self._pages[entity_id]
                page.pending.discard(key)
                page.planned.add(key)
                page.first = key if not page.started else page.first
                page.started = True
                page.new |= new

    def linked(
        self, context_id: str, texts: list[str], mentions: list[list[dict[str, str]]], known: NameIndex
    ) -> list[list[dict[str, str]]]:
        """Each chunk's mentions with those of the pages ahead that its text names as a name, their titles
        unknown to ``known`` (the context's dictionary as the chunk is indexed): added as their back-links
        would add them, one after another in the pages' order (``with_page_mention``)."""
        if context_id != self.context_id:
            return mentions
        result = []
        with self._lock:
            for text, found in zip(texts, mentions, strict=True):
                named = self._named(text)
                ahead = sorted((p for p in named if _unknown(p.entry, known)), key=_position)
                for page in ahead:
                    found = with_page_mention(found, page.entry)
                    page.linked += 1
                given = {m.get("entity_id") for m in found}
                for page in named:
                    page.missed |= page.entry.entity_id not in given
                result.append(found)
        return result

    def linked_ahead(self, key: str, title: str) -> bool:
        """Whether every chunk a search of the context could find naming ``title`` as a name mentions
        its page already, when ``key``'s file indexes that page: the context had no index before the
        sync (``fresh``), the title was expected from the start for this file, the first of its page
        planned, unshared with another page of the sync, and every chunk that named it before (each
        planned before this file) was written with its mention. A chunk planned after this file is
        committed with it or later, so the file's back-links read it in the writer's record, never by a
        search. Its back-link search then finds nothing for the title (``IndexWriter``)."""
        entry = NamedEntity(entity_id_of(self.context_id, title), title, PAGE_ENTITY_TYPE)
        with self._lock:
            page = self._pages.get(entry.entity_id)
            return (
                self.fresh
                and page is not None
                and page.entry == entry
                and page.first == key
                and not page.missed
                and self._by_key.get(fold(title)) == entry.entity_id
            )

    def _named(self, text: str) -> list[_Page]:
        """The pages ahead whose title the text writes as a name, wherever it starts (not only the longest
        match: a back-link's phrase search finds a title inside a longer name too)."""
        words = list(WORD.finditer(text))
        folded = [word.group().lower() for word in words]
        found: dict[str, _Page] = {}
        for start in range(len(words)):
            longest = min(self._longest_from.get(folded[start], 0), len(words) - start)
            for length in range(1, longest + 1):
                entity_id = self._by_key.get(" ".join(folded[start : start + length]))
                page = self._pages.get(entity_id) if entity_id is not None else None
                if page is None or page.started or entity_id in found:
                    continue
                written = text[words[start].start() : words[start + length - 1].end()]
                if written_as_name(written, page.entry.name):
                    found[page.entry.entity_id] = page
        return list(found.values())

    def committed(self, outcomes: Iterable[tuple[str, str | None]]) -> list[NamedEntity]:
        """Files committed, each with the title it was indexed under (None: it failed, was skipped or
        removed): the pages expected and linked to that no file of the sync can index any more."""
        with self._lock:
            touched: list[_Page] = []
            for key, title in outcomes:
                entity_id = self._of_file.get(key)
                if entity_id is not None:
                    touched.append(self._pages[entity_id])
                    touched[-1].planned.discard(key)
                page = self._pages.get(entity_id_of(self.context_id, title)) if title is not None else None
                if page is not None:
                    page.indexed = True  # whichever file it came from
            return self._lost(touched, lambda page: not page.pending and not page.planned)

    def kept(self, key: str) -> None:
        """A file of the sync found unchanged: its page stands as it was indexed."""
        with self._lock:
            entity_id = self._of_file.get(key)
            if entity_id is not None:
                self._pages[entity_id].planned.discard(key)
                self._pages[entity_id].indexed = True

    def never_came(self) -> list[NamedEntity]:
        """At the sync's end: the pages linked to that no file indexed (theirs never reached the ingest,
        or its planning ended in no commit)."""
        with self._lock:
            return self._lost(self._pages.values(), lambda page: True)

    def _lost(self, pages: Iterable[_Page], settled: Callable[[_Page], bool]) -> list[NamedEntity]:
        """Among ``pages`` (once each), those linked to (or new) that no file indexed, now ``settled``."""
        unique = {id(p): p for p in pages}.values()
        lost = [p for p in unique if (p.linked or p.new) and not p.indexed and settled(p)]
        for page in lost:
            page.linked, page.new = 0, False  # unlinked once
        return [page.entry for page in lost]


def _unknown(page: NamedEntity, known: NameIndex) -> bool:
    """Whether the dictionary leaves the page's title to the page: unknown to it, or the name of an
    entity with the page's id (an extracted name the page's entry replaces when it comes); not a name
    of another entity, nor an ambiguous one (no back-link would link it)."""
    held = known.get(page.name)
    return held.entity_id == page.entity_id if held is not None else not known.knows(page.name)


def _position(page: _Page) -> int:
    return page.position
