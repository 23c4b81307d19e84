"""The ``context_packet`` a retrieve response carries: citable text plus an account of every hit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..models.vocabulary import Kind

DropReason = Literal["duplicate", "max_items", "budget"]


class PackedItem(BaseModel):
    """A hit that made it into the text, at the score retrieval gave it."""

    id: str
    source_id: str = Field(description="The label the text cites this item by, e.g. 'S3'.")
    kind: Kind
    score: float
    truncated: bool = Field(description="The text was cut short to fit.")
    compressed: bool = Field(description="Only the sentences most relevant to the task were kept.")
    uri: str | None = Field(default=None, description="Where to cite it from (the hit's location.uri).")
    section: str | None = Field(
        default=None, description="Its section, 'A > B' (the hit's location.section)."
    )
    url: str | None = Field(
        default=None, description="A link that opens it at its section (the hit's location.url), when known."
    )
    via: list[str] | None = Field(
        default=None,
        description="A multi-hop hit: the links that reached it, each `<source> > <entity> (<about or "
        "mentions>)`, e.g. `S1 > Ada Smith (about)`; null for a hit the text search found.",
    )


class DroppedItem(BaseModel):
    """A hit left out of the text, and why. It is still one of the answer's ``hits``, so the session's
    receipt names it among its sources (the receipt counts what was returned, the packet what fit)."""

    id: str
    source_id: str
    reason: DropReason


class ContextPacket(BaseModel):
    """Evidence that fits the caller's prompt: ``used`` <= ``budget``, both measured in ``unit``."""

    text: str
    unit: str = Field(description="'tokens:cl100k_base' or 'chars'.")
    budget: int
    used: int
    items: list[PackedItem]
    dropped: list[DroppedItem]
    n_candidates: int = Field(description="How many hits the packet was built from.")
