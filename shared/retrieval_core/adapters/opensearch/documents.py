"""Translation between items and index documents, and from index hits to leak-free ``Hit`` DTOs."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...models.hit_parts import METADATA_CAP_CHARS
from ...models.hits import Hit, Signal
from ...models.limits import LIMITS
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


def hit_of(
    source: dict[str, Any],
    *,
    score: float,
    signals: dict[str, Signal] | None = None,
    found_by: list[str] | None = None,
) -> Hit:
    """A response hit from an index document. Mentions outside the document's own context are dropped
    (the loader rejects them, this is a second line of defence).

    Validated from one plain dict: pydantic-core does that faster than building the nested models in
    Python (``model_construct`` included)."""
    context_prefix = f"{source['context_id']}:"
    grounding = source.get("grounding", [])
    metadata, metadata_truncated = capped_metadata(source.get("metadata"))
    # A hierarchical child answers with its parent's passage (grounding ``text``), scored as itself.
    passage = next((g["text"] for g in grounding if g.get("text")), None)
    text, text_truncated = fit_text(passage or source["text"], LIMITS.hit_text_bytes)
    return Hit.model_validate(
        {
            "id": source["id"],
            "kind": source["kind"],
            "text": text,
            "truncated": text_truncated,
            "score": score,
            "signals": signals or {},
            "status": source["status"],
            "confidence": source.get("confidence"),
            "created_at": source["created_at"],
            "mentions": [m for m in source.get("mentions", []) if m["entity_id"].startswith(context_prefix)],
            "provenance": {
                "source_ids": source.get("source_ids", []),
                "grounding_uris": [g["uri"] for g in grounding if g.get("uri")],
                "supersedes": source.get("supersedes", []),
            },
            "found_by": found_by or [],
            "metadata": metadata,
            "metadata_truncated": metadata_truncated,
            "valid_from": source.get("valid_from"),
            "valid_to": source.get("valid_to"),
            "location": location_of(grounding, source.get("metadata")),
        }
    )


# JSON escapes a character as at most 6 bytes (\u0000); a text this short cannot pass any limit.
_MAX_ESCAPED_CHAR_BYTES = 6


def fit_text(text: str, limit_bytes: int) -> tuple[str, bool]:
    """``text``, or its longest prefix whose JSON form fits ``limit_bytes``, and whether it was cut."""
    if len(text) * _MAX_ESCAPED_CHAR_BYTES <= limit_bytes or _json_size(text) <= limit_bytes:
        return text, False
    low, high = 0, min(len(text), limit_bytes)
    while low < high:  # the longest prefix that fits: a binary search over JSON sizes
        middle = (low + high + 1) // 2
        if _json_size(text[:middle]) <= limit_bytes:
            low = middle
        else:
            high = middle - 1
    return text[:low], True


def _json_size(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Made once (``json.dumps`` with options builds an encoder per call)."""


def capped_metadata(metadata: Mapping[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """``metadata`` cut to ``METADATA_CAP_CHARS`` by whole keys, and whether any key was left out."""
    if not metadata:
        return {}, False
    if len(_COMPACT.encode(metadata)) <= METADATA_CAP_CHARS:
        return dict(metadata), False  # the usual case, in one measure
    # Measured as compact JSON: two braces, then each key-value pair and a comma between pairs.
    kept: dict[str, Any] = {}
    used = 2
    for key, value in metadata.items():
        size = len(_COMPACT.encode({key: value})) - 2 + bool(kept)
        if used + size <= METADATA_CAP_CHARS:
            kept[key] = value
            used += size
    return kept, len(kept) < len(metadata)


LOCATION_KEYS = ("uri", "chunk_id", "start", "end", "page", "section", "version")


def location_of(
    grounding: Sequence[Mapping[str, Any]], metadata: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Where a hit can be cited: its first grounding span with a URI (with the chunk and offsets), else a
    string ``metadata.uri``; None when the item names no place."""
    for span in grounding:
        if span.get("uri"):
            return {key: span.get(key) for key in LOCATION_KEYS}
    uri = (metadata or {}).get("uri")
    return (
        {"uri": uri, "chunk_id": None, "start": None, "end": None} if isinstance(uri, str) and uri else None
    )
