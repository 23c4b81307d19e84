"""Back-links: when a page is indexed, the chunks indexed before it that name its title gain the
mention they would have had had the page come first, so the order files arrive in changes no link.

A chunk's mentions are found against the context's dictionary when the chunk is indexed; a page
indexed later adds its title to the dictionary, and the chunks already there that name it are found
(one phrase search) and re-loaded with the mention added (their stored vectors reused: nothing is
embedded again). The mention goes right after the chunk's own (its file, its page), so the graph pairs
it into edges (``chunk_items.PAIRED_NAMES``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ..models.item import Item
from ..models.limits import LIMITS
from ..models.page_titles import ABOUT_ROLE, title_aliases
from ..ports import NamedEntity
from .chunk_items import FILE_ENTITY_TYPE
from .entities import names_pattern, names_table, written_as_name

BACKLINKS_PER_PAGE = 200
"""Chunks one page's title re-links at most (a title every page names is no bridge worth the writes)."""


def backlink_names(title_entry: NamedEntity, known: Sequence[NamedEntity]) -> list[str]:
    """The names the page's title answers to (itself, its aliases) that no other entity shares."""
    table = names_table([*known, title_entry])
    names = (title_entry.name, *title_aliases(title_entry.name))
    return [n for n in names if (e := table.get(n.lower())) and e.entity_id == title_entry.entity_id]


def backlinked(
    sources: Sequence[Mapping[str, Any]], title_entry: NamedEntity, names: Sequence[str]
) -> list[Item]:
    """The chunks among ``sources`` whose text names the page as a name (capitalised as its title is),
    as items with the page's mention added after their own. A stored chunk that is no longer a valid
    item (the limits changed since it was indexed) is left as it is, as a load would refuse it."""
    pattern = names_pattern(tuple(sorted({n.lower() for n in names})))
    items = []
    for source in sources:
        text = str(source.get("text", ""))
        if pattern is None or not any(
            written_as_name(m.group(), title_entry.name) for m in pattern.finditer(text)
        ):
            continue
        # A mention of the same id found before the page existed (an extracted name) becomes the page's.
        mentions = [m for m in source.get("mentions", []) if m.get("entity_id") != title_entry.entity_id]
        own = sum(1 for m in mentions if m.get("type") == FILE_ENTITY_TYPE or m.get("role") == ABOUT_ROLE)
        added = {"entity_id": title_entry.entity_id, "name": title_entry.name[:256], "type": title_entry.type}
        item = {key: value for key, value in source.items() if value is not None}
        item["mentions"] = [*mentions[:own], added, *mentions[own:]][: LIMITS.mentions]
        try:
            items.append(Item.model_validate(item))
        except ValidationError:
            continue
    return items
