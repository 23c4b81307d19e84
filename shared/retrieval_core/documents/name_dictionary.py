"""The entity dictionary an ingest matches chunks against: ``NameIndex`` (names by folded words, found in
a text at the text's cost) and ``ContextNames``, each context's dictionary as one ingest container
keeps it: read whole once (no cap), then
extended in place by what each file adds, and by what other writers added, read every few seconds as
the names of the items created since the last read (``RecentNames``). A local ``retrieval sync`` runs
the ingest function in one process, so its whole folder pays for one read; a deployed ingest
container pays for one read per context it serves and a small read of the recent names now and then
(docs/STORAGE.md, "The entity dictionary an ingest reads")."""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Generic, Protocol, TypeVar, runtime_checkable

from ..models.page_titles import PAGE_ENTITY_TYPE, title_aliases
from ..ports import NamedEntity
from .chunk_items import FILE_ENTITY_TYPE

MIN_NAME_CHARS = 3


class EntityDictionary(Protocol):
    def entity_names(self, context_id: str) -> list[NamedEntity]:
        """The context's dictionary: every (entity id, name, type) its items' mentions give."""
        ...


WORD = re.compile(r"\w+[+#]*")
"""A word of a name or a text ("C++" and "C#" keep their marks: they are how those names differ)."""


def fold(name: str) -> str:
    """A name as the dictionary keys it: its words, lower-cased, one space apart ("Maurice (film)" and
    "maurice film" are one key; punctuation and spacing between words do not count)."""
    lowered = name.lower()
    if lowered.replace(" ", "").isalnum() and "  " not in lowered and lowered.strip() == lowered:
        return lowered  # words of letters and digits, one space apart: already folded
    return " ".join(WORD.findall(lowered))


class NameIndex:
    """The dictionary by folded name, for finding its names in a text at a cost proportional to the text,
    not to the number of names: each word of the text is looked up as the first word of a name, and
    only where one starts are the word n-grams from it (up to the longest name starting with that word,
    longest first) looked up as whole names. Built once and extended in place as pages add names.

    Each entry answers to its name and, for a page, its title's aliases ("Maurice" for "Maurice
    (film)"). A folded name that two entities answer to is ambiguous and left out: a mention nobody can
    resolve without reading the text is not linked at all. Files are entities too (each chunk names its
    own), but no text names a file: leaving them out keeps the index to the context's real names
    however many files it holds."""

    __slots__ = ("_entries", "_longest_from")

    def __init__(self, entries: Iterable[NamedEntity] = ()) -> None:
        self._entries: dict[str, NamedEntity | None] = {}
        """Folded name -> its entity; None: ambiguous (two entities answer to it)."""
        self._longest_from: dict[str, int] = {}
        """First word of a name -> the most words a name starting with it has."""
        self.add(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, entries: Iterable[NamedEntity]) -> int:
        """Adds the entries; returns how many keys they changed (new, made ambiguous, or a page's)."""
        changed = 0
        for entry in entries:
            if entry.type == FILE_ENTITY_TYPE:
                continue
            aliases = title_aliases(entry.name) if entry.type == PAGE_ENTITY_TYPE else []
            for name in (entry.name, *aliases):
                key = fold(name)
                if len(name) >= MIN_NAME_CHARS and len(key) >= MIN_NAME_CHARS:
                    changed += self._put(key, entry)
        return changed

    def _put(self, key: str, entry: NamedEntity) -> bool:
        held = self._entries.get(key, _ABSENT)
        if held is _ABSENT:
            self._entries[key] = entry
            first, words = key.partition(" ")[0], key.count(" ") + 1
            if words > self._longest_from.get(first, 0):
                self._longest_from[first] = words
            return True
        if held is not None and held.entity_id != entry.entity_id:
            self._entries[key] = None
            return True
        if held is not None and entry.type == PAGE_ENTITY_TYPE and held != entry:
            # A page and a name the extractor found before the page existed share the id (the title's
            # slug); the page's entry wins, so later mentions are the page's and link to it.
            self._entries[key] = entry
            return True
        return False

    def only(self, names: Iterable[str]) -> NameIndex:
        """A copy holding only what ``names`` answer to now (an ambiguous name stays ambiguous): what a
        reader of these names alone needs, fixed while this index goes on growing."""
        copy = NameIndex()
        for key in {fold(name) for name in names}:
            if key in self._entries:
                copy._entries[key] = self._entries[key]
                first, words = key.partition(" ")[0], key.count(" ") + 1
                copy._longest_from[first] = max(words, copy._longest_from.get(first, 0))
        return copy

    def knows(self, name: str) -> bool:
        """Whether ``name`` (folded) is a key here at all, an ambiguous one included."""
        return fold(name) in self._entries

    def get(self, name: str) -> NamedEntity | None:
        """The one entity ``name`` (folded) names, if the dictionary knows exactly one."""
        return self._entries.get(fold(name))

    def find(self, text: str) -> Iterator[tuple[NamedEntity, str]]:
        """The names in ``text``, left to right, each with the text as written there; where names
        overlap, the longest starting first wins (as a regular expression's leftmost-longest match)."""
        words = list(WORD.finditer(text))
        folded = [word.group().lower() for word in words]
        longest_from, entries = self._longest_from, self._entries
        # Only where a name starts is there anything to look up: a text's other words (nearly all of
        # them) are passed over in one comprehension instead of a turn of the loop each.
        after = 0  # the first word after the last name found
        for start in [at for at, word in enumerate(folded) if word in longest_from]:
            if start < after:
                continue  # within a name found already
            for length in range(min(longest_from[folded[start]], len(words) - start), 0, -1):
                entry = entries.get(" ".join(folded[start : start + length]))
                if entry is not None:
                    yield entry, text[words[start].start() : words[start + length - 1].end()]
                    after = start + length
                    break


_ABSENT = NamedEntity("", "", "")


def _nothing(entry: NamedEntity) -> bool:
    return False


RECHECK_SECONDS = 5.0
"""How often a warm container reads the names other writers added (at most once per this, per context):
a name another container added reaches this one's matching at most this much later, while others write."""
QUIET_RECHECK_SECONDS = 60.0
"""The longest wait between two such reads while a sync is its contexts' only writer
(``ContextNames.only_writer``): each read that brings no name this process lacks (what it read was its
own writes, which it added as it made them) doubles the wait up to this, and one that brings any goes
back to ``RECHECK_SECONDS``. Such a sync wrote most of what each read returns (two minutes of its own
items, ``OVERLAP``), read every 5 s: 12% of its main thread. A deployed container never backs off: at a
burst's start another container's first names would reach it up to a minute late."""
OVERLAP = timedelta(minutes=2)
"""How far back before the last read a recent read reaches: an item is stamped when its file is chunked
and becomes searchable after its load and the index's refresh, so one created before the last read may
only be visible after it."""
MAX_AGE_SECONDS = 900.0
"""A context's dictionary is read whole again after this long: what the recent reads cannot see (an item
loaded with an old ``created_at``, a removed page's title) is at most this stale."""
CONTEXTS = 8
"""Contexts one container keeps (the least recently used one is dropped first)."""


class ExtendedIndex(Protocol):
    """What ``ContextNames`` keeps per context: built from the whole dictionary, extended in place."""

    def add(self, entries: Iterable[NamedEntity]) -> int:
        """Adds the entries; returns how much they changed (0: nothing)."""
        ...


IndexT = TypeVar("IndexT", bound=ExtendedIndex)


@runtime_checkable
class RecentNames(Protocol):
    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        """The dictionary entries of the context's items created at or after ``since`` (every one)."""
        ...


@dataclass(slots=True)
class _Cached(Generic[IndexT]):
    index: IndexT
    read_at: datetime
    """Wall time the last read (whole or recent) started."""
    loaded: float
    """Monotonic time of the last whole read."""
    checked: float
    """Monotonic time of the last read, whole or recent."""
    wait: float = RECHECK_SECONDS
    """Seconds until the next recent read while a sync is the only writer (longer while reads bring
    nothing new)."""


class ContextNames(Generic[IndexT]):
    """The dictionaries of the contexts this container serves, each an index ``build`` makes of the
    whole dictionary (the ingest's ``NameIndex``, which its callers extend in place with what they add;
    the retrieve function's ``understanding.alias_index.AliasIndex``)."""

    def __init__(
        self,
        source: EntityDictionary,
        build: Callable[[Iterable[NamedEntity]], IndexT],
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._source = source
        self._build = build
        self._clock = clock
        self._monotonic = monotonic
        self._cached: OrderedDict[str, _Cached[IndexT]] = OrderedDict()
        self._only_writers = 0
        self._ignored: Callable[[NamedEntity], bool] = _nothing

    @contextmanager
    def only_writer(self, ignored: Callable[[NamedEntity], bool] | None = None) -> Iterator[None]:
        """Inside, this process writes its contexts alone (a local ``retrieval sync``): reads of what
        other writers added back off while they bring nothing new (``QUIET_RECHECK_SECONDS``). Outside,
        every ``RECHECK_SECONDS``, however quiet: a deployed container is one writer among several.
        ``ignored``: entries the reads leave out meanwhile (a sync's pages mentioned ahead of them,
        ``documents.expected_pages``: not in the dictionary before their page is)."""
        self._only_writers += 1
        before = self._ignored
        self._ignored = ignored or before
        try:
            yield
        finally:
            self._only_writers -= 1
            self._ignored = before

    def index(self, context_id: str) -> IndexT:
        """The context's dictionary, current as of the last ``RECHECK_SECONDS``."""
        now = self._monotonic()
        cached = self._cached.get(context_id)
        if cached is None or now - cached.loaded >= MAX_AGE_SECONDS:
            started = self._clock()
            whole = self._source.entity_names(context_id)
            cached = _Cached(self._build(e for e in whole if not self._ignored(e)), started, now, now)
            self._cached[context_id] = cached
        elif now - cached.checked >= self._wait(cached) and isinstance(self._source, RecentNames):
            started = self._clock()
            recent = self._source.entity_names_since(context_id, cached.read_at - OVERLAP)
            news = cached.index.add(e for e in recent if not self._ignored(e))
            cached.read_at, cached.checked = started, now
            cached.wait = RECHECK_SECONDS if news else min(2 * cached.wait, QUIET_RECHECK_SECONDS)
        self._cached.move_to_end(context_id)
        while len(self._cached) > CONTEXTS:
            self._cached.popitem(last=False)
        return cached.index

    def _wait(self, cached: _Cached[IndexT]) -> float:
        return cached.wait if self._only_writers else RECHECK_SECONDS
