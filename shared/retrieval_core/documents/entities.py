"""Entity mentions for chunks, without a language model: first the context's own entity dictionary (the
names its items already give entities, the names ``auto`` links), then an ``EntityExtractor``
(``name_rules.RuleBasedExtractor`` offline, the default; Amazon Comprehend's DetectEntities in a stack
that opts in). A found name that the dictionary knows links to the dictionary's entity id, so entities
in documents and in JSON Lines items meet in one graph."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from ..models.limits import LIMITS
from ..models.page_titles import PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE
from ..ports import NamedEntity
from .name_dictionary import ContextNames, EntityDictionary, NameIndex

CAPITALISED_TYPES = frozenset({PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE})


@dataclass(frozen=True, slots=True)
class FoundEntity:
    name: str
    type: str


class EntityExtractor(Protocol):
    def extract(self, texts: Sequence[str]) -> list[list[FoundEntity]]:
        """The named entities in each text, in order."""
        ...


class MentionFinder:
    """Mentions of each chunk: dictionary names found in its text, then the extractor's names (linked
    to a dictionary id when the name matches one, else to ``<context>:entity/<slug>``)."""

    def __init__(self, dictionary: EntityDictionary | None, extractor: EntityExtractor | None) -> None:
        self._dictionary = ContextNames(dictionary, NameIndex) if dictionary else None
        self._extractor = extractor

    def dictionary(self, context_id: str) -> NameIndex:
        """The context's dictionary, indexed by folded name (empty without one): kept across files and
        extended in place by its callers (``name_dictionary.ContextNames``)."""
        return self._dictionary.index(context_id) if self._dictionary else NameIndex()

    @contextmanager
    def only_writer(self, ignored: Callable[[NamedEntity], bool] | None = None) -> Iterator[None]:
        """Inside, this process writes its contexts alone (a sync): ``ContextNames.only_writer``."""
        with self._dictionary.only_writer(ignored) if self._dictionary else nullcontext():
            yield

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
                if entry.type in CAPITALISED_TYPES and not written_as_name(written, entry.name):
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
