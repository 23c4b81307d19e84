"""Entity mentions for chunks, without a language model: first the context's own entity dictionary (the
names its items already give entities, the names ``auto`` links), then an ``EntityExtractor``
(``name_rules.RuleBasedExtractor`` offline, the default; Amazon Comprehend's DetectEntities in a stack
that opts in). A found name that the dictionary knows links to the dictionary's entity id, so entities
in documents and in JSON Lines items meet in one graph."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..models.limits import LIMITS
from ..models.page_titles import PAGE_ENTITY_TYPE, title_aliases
from ..ports import NamedEntity
from .chunk_items import FILE_ENTITY_TYPE

MIN_NAME_CHARS = 3


@dataclass(frozen=True, slots=True)
class FoundEntity:
    name: str
    type: str


class EntityExtractor(Protocol):
    def extract(self, texts: Sequence[str]) -> list[list[FoundEntity]]:
        """The named entities in each text, in order."""
        ...


class EntityDictionary(Protocol):
    def entity_names(self, context_id: str) -> list[NamedEntity]:
        """The context's dictionary: every (entity id, name, type) its items' mentions give."""
        ...


class MentionFinder:
    """Mentions of each chunk: dictionary names found in its text, then the extractor's names (linked
    to a dictionary id when the name matches one, else to ``<context>:entity/<slug>``)."""

    def __init__(self, dictionary: EntityDictionary | None, extractor: EntityExtractor | None) -> None:
        from .name_dictionary import ContextNames

        self._dictionary = ContextNames(dictionary) if dictionary else None
        self._extractor = extractor

    def dictionary(self, context_id: str) -> NameIndex:
        """The context's dictionary, indexed by folded name (empty without one): kept across files and
        extended in place by its callers (``name_dictionary.ContextNames``)."""
        return self._dictionary.index(context_id) if self._dictionary else NameIndex()

    def mentions(
        self, context_id: str, texts: Sequence[str], known: NameIndex | None = None
    ) -> list[list[dict[str, str]]]:
        """Each text's mentions against ``known`` (the context's dictionary, read here when not given: a
        caller that needs the dictionary again for the same page reads it once and passes it)."""
        known = self.dictionary(context_id) if known is None else known
        extracted = self._extractor.extract(texts) if self._extractor else [[] for _ in texts]
        result = []
        for text, found in zip(texts, extracted, strict=True):
            entries: dict[str, dict[str, str]] = {}
            for entry, written in known.find(text):
                if entry.type == PAGE_ENTITY_TYPE and not written_as_name(written, entry.name):
                    continue
                entries.setdefault(entry.entity_id, _mention(entry.entity_id, entry.name, entry.type))
            for entity in found:
                known_entry = known.get(entity.name)
                if known_entry is not None:
                    entity_id, type_ = known_entry.entity_id, known_entry.type
                else:
                    entity_id, type_ = entity_id_of(context_id, entity.name), entity.type
                entries.setdefault(entity_id, _mention(entity_id, entity.name, type_))
            result.append(list(entries.values())[: LIMITS.mentions])
        return result


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

    def add(self, entries: Iterable[NamedEntity]) -> None:
        for entry in entries:
            if entry.type == FILE_ENTITY_TYPE:
                continue
            aliases = title_aliases(entry.name) if entry.type == PAGE_ENTITY_TYPE else []
            for name in (entry.name, *aliases):
                key = fold(name)
                if len(name) >= MIN_NAME_CHARS and len(key) >= MIN_NAME_CHARS:
                    self._put(key, entry)

    def _put(self, key: str, entry: NamedEntity) -> None:
        held = self._entries.get(key, _ABSENT)
        if held is _ABSENT:
            self._entries[key] = entry
            first, words = key.partition(" ")[0], key.count(" ") + 1
            if words > self._longest_from.get(first, 0):
                self._longest_from[first] = words
        elif held is not None and held.entity_id != entry.entity_id:
            self._entries[key] = None
        elif held is not None and entry.type == PAGE_ENTITY_TYPE:
            # A page and a name the extractor found before the page existed share the id (the title's
            # slug); the page's entry wins, so later mentions are the page's and link to it.
            self._entries[key] = entry

    def get(self, name: str) -> NamedEntity | None:
        """The one entity ``name`` (folded) names, if the dictionary knows exactly one."""
        return self._entries.get(fold(name))

    def find(self, text: str) -> Iterator[tuple[NamedEntity, str]]:
        """The names in ``text``, left to right, each with the text as written there; where names
        overlap, the longest starting first wins (as a regular expression's leftmost-longest match)."""
        words = list(WORD.finditer(text))
        folded = [word.group().lower() for word in words]
        position = 0
        while position < len(words):
            longest = min(self._longest_from.get(folded[position], 0), len(words) - position)
            for length in range(longest, 0, -1):
                entry = self._entries.get(" ".join(folded[position : position + length]))
                if entry is not None:
                    yield entry, text[words[position].start() : words[position + length - 1].end()]
                    position += length
                    break
            else:
                position += 1


_ABSENT = NamedEntity("", "", "")


def written_as_name(found: str, title: str) -> bool:
    """A page's title counts only where the text writes it as a name, capitalised as the title is:
    "Band" names the page "The Band", "the band played" does not."""
    return not found[:1].islower() or title[:1].islower()


def _mention(entity_id: str, name: str, type_: str) -> dict[str, str]:
    return {"entity_id": entity_id, "name": name[:256], "type": type_[:256]}


def entity_id_of(context_id: str, name: str) -> str:
    """The id a name found in text gets when the dictionary does not know it: ``<context>:entity/<slug>``."""
    return f"{context_id}:entity/{_slug(name)}"


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:80] or hashlib.sha256(name.encode()).hexdigest()[:16]
