"""Translation between items and index documents. A search reads a document back as the item it stores
(``models.hits.StoredItem``): the response ``Hit`` is made from that, by the model's own rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...models.vocabulary import Kind, iso

if TYPE_CHECKING:  # the read path (hits) must not build the loadable item's schema
    from ...models.item import Item

HEADING_FIELD = "heading"
"""A section's heading path, stored beside the text and copied into the ``text`` field's index
(``index.HEADING_PROPERTY``): BM25 matches a page's title in every chunk of it, and hits return the
chunk's own text."""

# Kinds by value, without the enum constructor's cost (a hybrid search reads two arms of candidates,
# the preset's ``candidate_depth`` each).
KINDS = {kind.value: kind for kind in Kind}


def document_of(item: Item, embedding: list[float]) -> dict[str, Any]:
    """The index document for an item. Its ``_id`` is the item id and its routing is the context."""
    return {
        "id": item.id,
        "context_id": item.context_id,
        "kind": str(item.kind),
        "status": str(item.status),
        "text": item.text,
        **({HEADING_FIELD: item.heading} if item.heading else {}),
        "entity_ids": item.entity_ids,
        "mention_types": list(dict.fromkeys(m.type for m in item.mentions)),
        "confidence": item.confidence,
        "created_at": iso(item.created_at),
        "valid_from": iso(item.valid_from),
        "valid_to": iso(item.valid_to),
        "source_ids": item.source_ids,
        "supersedes": item.supersedes,
        "contradicts": item.contradicts,
        "mentions": [m.model_dump(exclude_none=True) for m in item.mentions],
        **name_fields(m.model_dump() for m in item.mentions),
        "grounding": [g.model_dump(exclude_none=True) for g in item.grounding],
        "metadata": item.metadata,
        "embedding": embedding,
    }


NAME_KEY_SEPARATOR = "\u001f"
"""Between an entry's entity id, name and type in ``entity_name_keys`` (no name or id holds it)."""


def name_fields(mentions: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The entity dictionary's fields of a document, from its mentions: ``entity_names`` (searched with the
    question's words) and ``entity_name_keys`` (id, name and type of each, aggregated into the entries
    ``auto`` links against). Being fields of the item's own document, they are written, replaced and
    deleted with it: the dictionary needs no store of its own to keep in sync."""
    seen = {(m["entity_id"], m["name"], m["type"]): None for m in mentions}
    return {
        "entity_names": list(dict.fromkeys(name for _, name, _ in seen)),
        "entity_name_keys": [NAME_KEY_SEPARATOR.join(entry) for entry in seen],
    }


def with_names(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its dictionary fields, derived from its mentions (a copy made by a rebuild or
    a reindex from an index that predates them gains them on the way)."""
    if "entity_name_keys" in document:
        return document
    return {**document, **name_fields(document.get("mentions", []))}
