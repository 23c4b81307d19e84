"""What the lineage store returns: an item's card and the links other items wrote on it. Only
``why_explain`` reads them, so they live apart from the hits every retrieve request builds."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .vocabulary import Kind, Status, empty_list


class LineageCard(BaseModel):
    """What the lineage store knows about one item (texts come from the search index)."""

    id: str
    kind: Kind
    status: Status
    confidence: float | None = None
    created_at: str
    source_ids: list[str] = Field(default_factory=empty_list)
    grounding: list[dict[str, Any]] = Field(default_factory=empty_list)
    supersedes: list[str] = Field(default_factory=empty_list)
    contradicts: list[str] = Field(default_factory=empty_list)


class LineageLinks(BaseModel):
    """The reverse links stored on an item's partition (written by the items that point at it)."""

    derived_to: list[str] = Field(default_factory=empty_list)
    superseded_by: list[str] = Field(default_factory=empty_list)
    contradicted_by: list[str] = Field(default_factory=empty_list)
