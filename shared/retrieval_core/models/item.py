"""The item users load, one JSON object per line. These models are the schema (see ``retrieval schema``)."""

from __future__ import annotations

from typing import Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..context import CONTEXT_ID_PATTERN, context_of
from .vocabulary import Kind, Status


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Mention(_Strict):
    entity_id: str = Field(min_length=3)
    name: str = Field(min_length=1)
    type: str = Field(min_length=1)
    role: str | None = None


class Grounding(_Strict):
    chunk_id: str = Field(min_length=3)
    uri: str | None = None
    start: int | None = Field(default=None, ge=0)
    end: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _span_is_ordered(self) -> Grounding:
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError("end must be >= start")
        return self


class Item(_Strict):
    """One retrievable unit: a proposition, a document chunk, a record, an artifact or a trace."""

    # context_id comes first so the link validators below can see it.
    context_id: str
    id: str = Field(min_length=3, max_length=512)
    kind: Kind
    text: str = Field(min_length=1)
    mentions: list[Mention] = Field(default_factory=list)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    status: Status = Status.ACTIVE
    created_at: AwareDatetime
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    source_ids: list[str] = Field(default_factory=list)
    grounding: list[Grounding] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list)
    contradicts: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    embedding: list[float] | None = Field(default=None, min_length=1)

    @field_validator("context_id")
    @classmethod
    def _context_id_shape(cls, value: str) -> str:
        if not CONTEXT_ID_PATTERN.fullmatch(value):
            raise ValueError("must be 1-63 lowercase letters, digits, '-' or '_'")
        return value

    @field_validator("embedding")
    @classmethod
    def _finite_embedding(cls, value: list[float] | None) -> list[float] | None:
        if value is not None and any(v != v or v in (float("inf"), float("-inf")) for v in value):
            raise ValueError("must hold finite numbers only")
        return value

    @field_validator("id", "source_ids", "supersedes", "contradicts")
    @classmethod
    def _ids_in_context(cls, value: str | list[str], info: ValidationInfo) -> str | list[str]:
        for ref in [value] if isinstance(value, str) else value:
            _require_context(ref, info)
        return value

    @field_validator("mentions")
    @classmethod
    def _mentions_in_context(cls, value: list[Mention], info: ValidationInfo) -> list[Mention]:
        for mention in value:
            _require_context(mention.entity_id, info)
        return value

    @field_validator("grounding")
    @classmethod
    def _grounding_in_context(cls, value: list[Grounding], info: ValidationInfo) -> list[Grounding]:
        for chunk in value:
            _require_context(chunk.chunk_id, info)
        return value

    @model_validator(mode="after")
    def _validity_ordered(self) -> Item:
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError("valid_to must not be before valid_from")
        return self

    @property
    def entity_ids(self) -> list[str]:
        """Distinct mentioned entities, in mention order."""
        return list(dict.fromkeys(m.entity_id for m in self.mentions))


def _require_context(ref: str, info: ValidationInfo) -> None:
    """Every id an item names must carry the item's own context prefix: links never cross contexts."""
    context_id = info.data.get("context_id")
    if context_id is not None and context_of(ref) != context_id:
        raise ValueError(f"'{ref}' must start with '{context_id}:' (links may not cross contexts)")
