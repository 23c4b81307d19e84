"""A context's dictionary held in the function, for reading a question without asking OpenSearch which
names share its words (the lookup that was the largest body ``auto`` added to hybrid's round trip).

``AliasIndex`` keeps every entry under the token sequences it answers to (``linker.aliases``), and the
long sequences (where a near miss is possible, ``linker.near_miss``) also by token count, first letter
and length. A question's candidates are the entries of every alias one of its runs of tokens equals or
nearly equals, and every entry sharing such an alias: the linker then reads the question exactly as it
would against the whole dictionary (an alias two entities share stays ambiguous), trying a few dozen
entries instead of thousands (``bench.lookup_readings``: 0 of 200 development questions read otherwise,
3-4 ms a question against 32-52 ms for every entry).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..documents.name_dictionary import ContextNames, EntityDictionary
from ..models.page_titles import SINGLE_NAME_TYPE
from ..ports import NamedEntity
from .linker import NEAR_MIN_CHARS, aliases, near_miss, tokens

_LENGTH_SLACK = 2
"""How far a near miss's length can be from its name's: ``near_miss`` allows at most two edits."""


class AliasIndex:
    """The entries of one context's dictionary by what they answer to; extended in place as names are
    added (``add``, as ``documents.name_dictionary.ContextNames`` extends the ingest's ``NameIndex``)."""

    __slots__ = ("_by_alias", "_longest", "_near", "_types")

    def __init__(self, entries: Iterable[NamedEntity] = ()) -> None:
        self._by_alias: dict[tuple[str, ...], dict[NamedEntity, None]] = {}
        self._near: dict[tuple[int, str, int], set[tuple[str, ...]]] = {}
        self._longest = 0
        self._types: set[str] = set()
        self.add(entries)

    def add(self, entries: Iterable[NamedEntity]) -> int:
        """Adds the entries; returns how many (alias, entry) pairs were new (0: nothing changed)."""
        added = 0
        for entry in entries:
            self._types.add(entry.type)
            if entry.type == SINGLE_NAME_TYPE:
                continue  # the linker links none (a bridge the walk crosses, not a thing asked about)
            for alias, _ in aliases(entry):
                held = self._by_alias.setdefault(alias, {})
                added += entry not in held
                held[entry] = None
                self._longest = max(self._longest, len(alias))
                joined = " ".join(alias)
                if len(joined) >= NEAR_MIN_CHARS:
                    self._near.setdefault((len(alias), joined[:1], len(joined)), set()).add(alias)
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
                matched = [run] if run in self._by_alias else []
                seen = " ".join(run)
                for length in range(len(seen) - _LENGTH_SLACK, len(seen) + _LENGTH_SLACK + 1):
                    near = self._near.get((size, seen[:1], length), ())
                    matched += sorted(alias for alias in near if near_miss(seen, " ".join(alias)))
                for alias in matched:
                    found.update(self._by_alias[alias])
        return list(found)


class HeldNames:
    """``ports.QuestionNames``: each context's ``AliasIndex`` as this container holds it (read whole once,
    then what other writers add every few seconds: ``documents.name_dictionary.ContextNames``)."""

    def __init__(self, source: EntityDictionary) -> None:
        self._names = ContextNames(source, AliasIndex)

    def names_for(self, context_id: str, text: str) -> tuple[list[NamedEntity], frozenset[str]]:
        index = self._names.index(context_id)
        # The caller's own entities only (the loader refuses others; this is a second line of defence).
        own = [e for e in index.candidates(text) if e.entity_id.startswith(f"{context_id}:")]
        return own, index.types
