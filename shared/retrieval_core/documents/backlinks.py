"""Back-links: when a page is indexed, the chunks indexed before it that name its title gain the
mention they would have had had the page come first, so the order files arrive in changes no link.

A chunk's mentions are found against the context's dictionary when the chunk is indexed; a page
indexed later adds its title to the dictionary, and the chunks already there that name it are found
(one phrase search) and re-loaded with the mention added (their stored vectors reused: nothing is
embedded again). The mention goes right after the chunk's own (its file, its page), so the graph pairs
it into edges (``chunk_items.PAIRED_NAMES``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ..models.item import Item
from ..models.limits import LIMITS
from ..models.page_titles import ABOUT_ROLE, title_aliases
from ..ports import NamedEntity
from .chunk_items import FILE_ENTITY_TYPE
from .entities import written_as_name
from .name_dictionary import WORD, NameIndex, fold

Mentions = list[dict[str, str]]

BACKLINKS_PER_PAGE = 200
"""Chunks one page's title re-links at most (a title every page names is no bridge worth the writes)."""


def backlink_names(title_entry: NamedEntity, known: NameIndex) -> list[str]:
    """The names the page's title answers to (itself, its aliases) that no other entity shares in
    ``known`` (the context's dictionary, which holds the page's own entry by now)."""
    names = (title_entry.name, *title_aliases(title_entry.name))
    return [n for n in names if (e := known.get(n)) and e.entity_id == title_entry.entity_id]


def backlinked(
    sources: Sequence[Mapping[str, Any]], title_entry: NamedEntity, names: Sequence[str]
) -> list[Item]:
    """The chunks among ``sources`` whose text names the page as a name (capitalised as its title is),
    as items with the page's mention added after their own. A stored chunk that is no longer a valid
    item (the limits changed since it was indexed) is left as it is, as a load would refuse it."""
    index = NameIndex(NamedEntity(title_entry.entity_id, name, "") for name in names)
    items = []
    for source in sources:
        if not names_page(str(source.get("text", "")), title_entry, index):
            continue
        item = {key: value for key, value in source.items() if value is not None}
        item["mentions"] = with_page_mention(source.get("mentions", []), title_entry)
        try:
            items.append(Item.model_validate(item))
        except ValidationError:
            continue
    return items


def names_page(text: str, title_entry: NamedEntity, index: NameIndex) -> bool:
    """Whether ``text`` names the page as a name (one of ``index``'s names, capitalised as its title is)."""
    return any(written_as_name(found, title_entry.name) for _, found in index.find(text))


def with_page_mention(
    mentions: Sequence[Mapping[str, str]], title_entry: NamedEntity
) -> list[dict[str, str]]:
    """A chunk's mentions with the page's added right after the chunk's own (its file, its page), so the
    graph pairs it: a mention of the same id found before the page existed (an extracted name) becomes
    the page's."""
    kept = [dict(m) for m in mentions if m.get("entity_id") != title_entry.entity_id]
    own = sum(1 for m in kept if m.get("type") == FILE_ENTITY_TYPE or m.get("role") == ABOUT_ROLE)
    added = {"entity_id": title_entry.entity_id, "name": title_entry.name[:256], "type": title_entry.type}
    return [*kept[:own], added, *kept[own:]][: LIMITS.mentions]


def without_page_mention(
    mentions: Sequence[Mapping[str, str]], title_entry: NamedEntity, named: Sequence[Mapping[str, str]]
) -> Mentions:
    """A chunk's mentions less the page's as ``with_page_mention`` adds it (not a page's own ``about``).
    ``named``: what the chunk's text names without the page, in the mention finder's order; a mention of
    the page's id among them (an extracted name the page's replaced) is put back, before the first
    mention past the page's place that the finder puts after it."""
    kept: Mentions = []
    at = None
    for mention in mentions:
        if is_page_mention(mention, title_entry):
            at = len(kept)
        else:
            kept.append(dict(mention))
    restored = next((m for m in named if m.get("entity_id") == title_entry.entity_id), None)
    if restored is None or at is None:
        return kept
    rank = {m.get("entity_id"): n for n, m in enumerate(named)}
    mine = rank[title_entry.entity_id]
    place = next(
        (p for p in range(at, len(kept)) if rank.get(kept[p].get("entity_id"), -1) > mine), len(kept)
    )
    return [*kept[:place], dict(restored), *kept[place:]][: LIMITS.mentions]


def is_page_mention(mention: Mapping[str, Any], title_entry: NamedEntity) -> bool:
    """Whether ``mention`` is the page's as ``with_page_mention`` adds it (not a page's own ``about``)."""
    added = (title_entry.entity_id, title_entry.name[:256], title_entry.type)
    key = (mention.get("entity_id"), mention.get("name"), mention.get("type"))
    return key == added and not mention.get("role")


UNSEARCHED_CHUNKS = 2_000
"""Chunks written since the last refresh that an ingest keeps in memory; past it, or past
``UNSEARCHED_SECONDS``, it refreshes what it wrote (making it searchable) and forgets them."""
UNSEARCHED_SECONDS = 10.0


class UnsearchedChunks:
    """The chunks an ingest wrote that a search may not see yet (no refresh after each file: a refresh
    per file made a segment per file, and the node's merging grew with the index). A later page's
    back-links read them here, beside what the search finds: the newest version of a chunk is this
    record's. Indexed by folded word, so a page's title looks up only the chunks holding its first word."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._items: dict[str, Item] = {}
        self._by_word: dict[tuple[str, str], set[str]] = {}
        self._touched: set[str] = set()
        self._since = 0.0

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._items

    def contexts(self) -> set[str]:
        """The contexts written to since the last refresh (items or deletes)."""
        return set(self._touched)

    def due(self) -> set[str]:
        """The contexts to refresh now (the record is full or old), or none."""
        full = len(self._items) >= UNSEARCHED_CHUNKS
        if self._touched and (full or self._monotonic() - self._since >= UNSEARCHED_SECONDS):
            return self.contexts()
        return set()

    def written(self, context_id: str, items: Iterable[Item] = (), deleted: Iterable[str] = ()) -> None:
        """``items`` written to the context and ``deleted`` (ids) removed from it, unsearched yet."""
        if not self._touched:
            self._since = self._monotonic()
        self._touched.add(context_id)
        for chunk_id in deleted:
            self._items.pop(chunk_id, None)
        for item in items:
            self._items[item.id] = item
            for word in {w.lower() for w in WORD.findall(item.text)}:
                self._by_word.setdefault((item.context_id, word), set()).add(item.id)

    def searchable(self) -> None:
        """What was written is searchable now (refreshed): forget it."""
        self._items.clear()
        self._by_word.clear()
        self._touched.clear()

    def mentioning(self, context_id: str, entry: NamedEntity) -> list[dict[str, Any]]:
        """The recorded chunks of the context that mention ``entry`` (that id, name and type, any role)."""
        key = (entry.entity_id, entry.name[:256], entry.type)
        return [
            item.model_dump(mode="json", exclude_none=True)
            for item in self._items.values()
            if item.context_id == context_id and key in {(m.entity_id, m.name, m.type) for m in item.mentions}
        ]

    def naming(self, context_id: str, names: Sequence[str], entry: NamedEntity) -> list[dict[str, Any]]:
        """The recorded chunks of the context that may name one of ``names`` and do not mention ``entry``
        yet, as stored sources (``backlinked`` decides which do)."""
        ids = {
            chunk_id
            for name in names
            for chunk_id in self._by_word.get((context_id, fold(name).partition(" ")[0]), ())
        }
        key = (entry.entity_id, entry.name, entry.type)
        return [
            self._items[chunk_id].model_dump(mode="json", exclude_none=True)
            for chunk_id in sorted(ids)
            if chunk_id in self._items
            and key not in {(m.entity_id, m.name, m.type) for m in self._items[chunk_id].mentions}
        ]
