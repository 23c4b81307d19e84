"""Translation between items and index documents, and from index hits to leak-free ``Hit`` DTOs."""

from __future__ import annotations

from typing import Any

from ...models.hits import Hit, MentionView, Provenance, Signal
from ...models.item import Item, iso


def document_of(item: Item, embedding: list[float]) -> dict[str, Any]:
    """The index document for an item. Its ``_id`` is the item id and its routing is the context."""
    return {
        "id": item.id,
        "context_id": item.context_id,
        "kind": str(item.kind),
        "status": str(item.status),
        "text": item.text,
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
        "grounding": [g.model_dump(exclude_none=True) for g in item.grounding],
        "metadata": item.metadata,
        "embedding": embedding,
    }


def hit_of(source: dict[str, Any], *, score: float, arm: str | None = None, rank: int | None = None) -> Hit:
    """A response hit from an index document. Mentions outside the document's own context are dropped
    (the loader rejects them, this is a second line of defence)."""
    context_prefix = f"{source['context_id']}:"
    signals = {arm: Signal(rank=rank, score=score)} if arm and rank else {}
    return Hit(
        id=source["id"],
        kind=source["kind"],
        text=source["text"],
        score=score,
        signals=signals,
        status=source["status"],
        confidence=source.get("confidence"),
        created_at=source["created_at"],
        mentions=[
            MentionView(**m) for m in source.get("mentions", []) if m["entity_id"].startswith(context_prefix)
        ],
        provenance=Provenance(
            source_ids=source.get("source_ids", []),
            grounding_uris=[g["uri"] for g in source.get("grounding", []) if g.get("uri")],
            supersedes=source.get("supersedes", []),
        ),
        found_by=[arm] if arm else [],
    )
