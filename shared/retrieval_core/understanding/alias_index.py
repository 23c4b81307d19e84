"""A context's dictionary held in the function, for reading a question without asking OpenSearch which names
share its words (the lookup that was the largest body ``auto`` added to hybrid's round trip).

``AliasIndex`` keeps every entry under the token sequences it answers to (``linker.aliases``), and the
long sequences (where a near miss is possible, ``linker.near_miss``) also by their first letter and k + 1
separate pieces of their text: a text within k edits of a name holds one of those pieces unchanged (the
pigeonhole principle), so a question's runs of tokens are looked up by their three-letter substrings, and
only the names sharing a piece and the first letter are checked. A question's candidates are the entries
of every alias one of its runs of tokens equals or nearly equals, and every entry sharing such an alias:
the linker then reads the question exactly as it would against the whole dictionary (an alias two
entities share stays ambiguous), trying a few dozen entries instead of thousands
(``bench.lookup_readings``: 0 of 200 development questions read otherwise).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Protocol, runtime_checkable

from ..documents.name_dictionary import MAX_AGE_SECONDS, ContextNames
from ..models.page_titles import SINGLE_NAME_TYPE
from ..ports import NamedEntity
from .linker import NEAR_MIN_CHARS, aliases, near_edits, near_miss, tokens

PIECE = 3
"""The length of the pieces a long name is indexed by."""


def _pieces(joined: str) -> set[str]:
    """One more piece of ``joined`` than the edits a near miss of it may make, spread over it and not
    overlapping (a long name has room: 8 characters for two pieces, 14 for three)."""
    edits = near_edits(joined)
    last = len(joined) - PIECE
    return {joined[at : at + PIECE] for at in (round(n * last / edits) for n in range(edits + 1))}


class AliasIndex:
    """The entries of one context's dictionary by what they answer to; extended in place as names are
    added (``add``, as ``documents.name_dictionary.ContextNames`` extends the ingest's ``NameIndex``)."""

    __slots__ = ("_by_alias", "_longest", "_near", "_order", "_types")

    def __init__(self, entries: Iterable[NamedEntity] = ()) -> None:
        self._by_alias: dict[tuple[str, ...], dict[NamedEntity, None]] = {}
        self._near: dict[tuple[int, str, str], set[tuple[str, ...]]] = {}
        """(token count, first letter, a piece of the joined text) -> the long aliases it is a piece of."""
        self._longest = 0
        self._types: set[str] = set()
        self._order: dict[NamedEntity, int] = {}
        """Each entry's place in the dictionary as read and extended: candidates keep it, so the linker
        orders two entities named exactly alike as it would over the whole dictionary."""
        self.add(entries)

    def add(self, entries: Iterable[NamedEntity]) -> int:
        """Adds the entries; returns how many (alias, entry) pairs were new (0: nothing changed)."""
        added = 0
        for entry in entries:
            self._types.add(entry.type)
            self._order.setdefault(entry, len(self._order))
            if entry.type == SINGLE_NAME_TYPE:
                continue  # the linker links none (a bridge the walk crosses, not a thing asked about)
            for alias, _ in aliases(entry):
                held = self._by_alias.setdefault(alias, {})
                added += entry not in held
                held[entry] = None
                self._longest = max(self._longest, len(alias))
                joined = " ".join(alias)
                if len(joined) >= NEAR_MIN_CHARS:
                    for piece in _pieces(joined):
                        self._near.setdefault((len(alias), joined[:1], piece), set()).add(alias)
        return added

    @property
    def types(self) -> frozenset[str]:
        """Every entity type the dictionary holds (what a question can ask for by its type's word)."""
        return frozenset(self._types)

    def candidates(self, question: str) -> list[NamedEntity]:
        """The entries the linker could link in ``question``, in a fixed order."""
        norms = [token.norm for token in tokens(question)]
        found: dict[NamedEntity, None] = {}
        for size in range(1, min(self._longest, len(norms)) + 1):
            for start in range(len(norms) - size + 1):
                run = tuple(norms[start : start + size])
                matched = {run} if run in self._by_alias else set()
                seen = " ".join(run)
                if len(seen) >= NEAR_MIN_CHARS - 2:  # within two edits of a name long enough
                    initial = seen[:1]
                    shared = {
                        alias
                        for at in range(len(seen) - PIECE + 1)
                        for alias in self._near.get((size, initial, seen[at : at + PIECE]), ())
                    }
                    matched |= {alias for alias in shared if near_miss(seen, " ".join(alias))}
                for alias in matched:
                    found.update(self._by_alias[alias])
        return sorted(found, key=self._order.__getitem__)


HELD_ENTRIES = 20_000
"""The most dictionary entries a context's held copy may have. Building one cost 141 and 187 ms of CPU
for the multi-hop development sets' 7,430 and 11,617 entries (``bench.lookup_readings``, a busy
machine), paid by a container's first question in the context and again every 15 minutes (the whole
read, ``name_dictionary.MAX_AGE_SECONDS``). A context with more is looked up in OpenSearch instead."""


@runtime_checkable
class BoundedDictionary(Protocol):
    def entity_names_within(self, context_id: str, most: int) -> list[NamedEntity] | None:
        """The context's dictionary if it holds at most ``most`` entries, else None."""
        ...

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        """The entries of the context's items created at or after ``since``."""
        ...


class _TooLargeError(Exception):
    """The context's dictionary has more than ``HELD_ENTRIES`` entries."""


class _Within:
    """``source`` as ``ContextNames`` reads it: a whole read refused past ``most`` entries, and only the
    context's own entities kept (the loader refuses others; this is a second line of defence, applied
    once per read rather than once per question)."""

    def __init__(self, source: BoundedDictionary, most: int) -> None:
        self._source = source
        self._most = most

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        found = self._source.entity_names_within(context_id, self._most)
        if found is None:
            raise _TooLargeError(context_id)
        return _own(context_id, found)

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        return _own(context_id, self._source.entity_names_since(context_id, since))


def _own(context_id: str, entries: list[NamedEntity]) -> list[NamedEntity]:
    return [e for e in entries if e.entity_id.startswith(f"{context_id}:")]


class HeldNames:
    """``ports.QuestionNames``: each context's ``AliasIndex`` as this container holds it (read whole once,
    then what other writers add every few seconds: ``documents.name_dictionary.ContextNames``), for a
    context of at most ``most`` entries; a larger one is not held (checked again after
    ``MAX_AGE_SECONDS``)."""

    def __init__(
        self,
        source: BoundedDictionary,
        most: int = HELD_ENTRIES,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._names = ContextNames(_Within(source, most), AliasIndex, monotonic=monotonic)
        self._monotonic = monotonic
        self._too_large: dict[str, float] = {}

    def names_for(self, context_id: str, text: str) -> tuple[list[NamedEntity], frozenset[str]] | None:
        now = self._monotonic()
        if now - self._too_large.get(context_id, -MAX_AGE_SECONDS) < MAX_AGE_SECONDS:
            return None
        try:
            index = self._names.index(context_id)
        except _TooLargeError:
            self._too_large[context_id] = now
            return None
        return index.candidates(text), index.types
