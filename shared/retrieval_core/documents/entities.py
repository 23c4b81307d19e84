"""Entity mentions for chunks, without a language model: first the context's own entity dictionary (the
names its items already give entities, the names ``auto`` links), then an ``EntityExtractor``
(``name_rules.RuleBasedExtractor`` offline, the default; Amazon Comprehend's DetectEntities in a stack
that opts in). A found name that the dictionary knows links to the dictionary's entity id, so entities
in documents and in JSON Lines items meet in one graph."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
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
        self._dictionary = dictionary
        self._extractor = extractor

    def dictionary(self, context_id: str) -> list[NamedEntity]:
        """The context's dictionary as it is now (empty without one)."""
        return self._dictionary.entity_names(context_id) if self._dictionary else []

    def mentions(
        self, context_id: str, texts: Sequence[str], known: Sequence[NamedEntity] | None = None
    ) -> list[list[dict[str, str]]]:
        """Each text's mentions against ``known`` (the context's dictionary, read here when not given: a
        caller that needs the dictionary again for the same page reads it once and passes it)."""
        known = self.dictionary(context_id) if known is None else known
        by_name = names_table(known)
        pattern = names_pattern(tuple(sorted(by_name)))
        extracted = self._extractor.extract(texts) if self._extractor else [[] for _ in texts]
        result = []
        for text, found in zip(texts, extracted, strict=True):
            entries: dict[str, dict[str, str]] = {}
            for match in pattern.finditer(text) if pattern else ():
                entry = by_name[match.group().lower()]
                if entry.type == PAGE_ENTITY_TYPE and not written_as_name(match.group(), entry.name):
                    continue
                entries.setdefault(entry.entity_id, _mention(entry.entity_id, entry.name, entry.type))
            for entity in found:
                known_entry = by_name.get(entity.name.lower())
                if known_entry is not None:
                    entity_id, type_ = known_entry.entity_id, known_entry.type
                else:
                    entity_id, type_ = entity_id_of(context_id, entity.name), entity.type
                entries.setdefault(entity_id, _mention(entity_id, entity.name, type_))
            result.append(list(entries.values())[: LIMITS.mentions])
        return result


def names_table(known: Sequence[NamedEntity]) -> dict[str, NamedEntity]:
    """The dictionary by folded name: each entry's name and, for a page, its title's aliases ("Maurice"
    for "Maurice (film)"). A folded name that two entities answer to is ambiguous and left out: a
    mention nobody can resolve without reading the text is not linked at all. Files are entities too
    (each chunk names its own), but no text names a file: leaving them out keeps the pattern to the
    context's real names however many files it holds."""
    owners: dict[str, set[str]] = {}
    entries: dict[str, NamedEntity] = {}
    for entry in known:
        if entry.type == FILE_ENTITY_TYPE:
            continue
        aliases = title_aliases(entry.name) if entry.type == PAGE_ENTITY_TYPE else []
        for name in (entry.name, *aliases):
            if len(name) >= MIN_NAME_CHARS:
                folded = name.lower()
                owners.setdefault(folded, set()).add(entry.entity_id)
                # A page and a name the extractor found before the page existed share the id (the
                # title's slug); the page's entry wins, so later mentions are the page's and link to it.
                if folded not in entries or entry.type == PAGE_ENTITY_TYPE:
                    entries[folded] = entry
    return {name: entries[name] for name, ids in owners.items() if len(ids) == 1}


def written_as_name(found: str, title: str) -> bool:
    """A page's title counts only where the text writes it as a name, capitalised as the title is:
    "Band" names the page "The Band", "the band played" does not."""
    return not found[:1].islower() or title[:1].islower()


def _mention(entity_id: str, name: str, type_: str) -> dict[str, str]:
    return {"entity_id": entity_id, "name": name[:256], "type": type_[:256]}


@lru_cache(maxsize=8)
def names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for the dictionary, compiled once while it stays the same (a sync's files mostly
    add nothing to it)."""
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def entity_id_of(context_id: str, name: str) -> str:
    """The id a name found in text gets when the dictionary does not know it: ``<context>:entity/<slug>``."""
    return f"{context_id}:entity/{_slug(name)}"


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:80] or hashlib.sha256(name.encode()).hexdigest()[:16]
