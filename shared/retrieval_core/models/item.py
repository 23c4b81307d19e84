"""The item users load, one JSON object per line. These models are the schema (see ``retrieval schema``)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..context import CONTEXT_ID_PATTERN, context_of
from .calendar import CalendarMoment
from .limits import FLOAT32_MAX, LIMITS, MAX_ITEM_ID_CHARS, DoorModel
from .vocabulary import Kind, Status, empty_dict, empty_list

Id = Annotated[str, Field(min_length=3, max_length=MAX_ITEM_ID_CHARS)]
Label = Annotated[str, Field(min_length=1, max_length=256)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Mention(_Strict):
    entity_id: Id
    name: Label
    type: Label
    role: Label | None = None


class Grounding(_Strict):
    chunk_id: Id
    uri: str | None = Field(default=None, max_length=2048)
    start: int | None = Field(default=None, ge=0)
    end: int | None = Field(default=None, ge=0)
    page: int | None = Field(default=None, ge=1, description="1-based page of the span (PDF, marked DOCX).")
    section: str | None = Field(default=None, max_length=1024, description="Heading path, 'A > B'.")
    anchor: str | None = Field(
        default=None,
        max_length=512,
        description="The section's anchor in the source (its heading's id: a URL fragment opens it).",
    )
    version: str | None = Field(default=None, max_length=1024, description="The source's version.")
    text: str | None = Field(
        default=None,
        max_length=LIMITS.text_bytes,
        description="The passage a hit returns instead of the item's own text (hierarchical chunking: "
        "the child is searched, its parent's text answers).",
    )
    path: str | None = Field(
        default=None, max_length=1024, description="The source's path relative to its synced folder."
    )
    local_path: str | None = Field(
        default=None, max_length=2048, description="The source's absolute path where a local sync read it."
    )
    url: str | None = Field(
        default=None,
        max_length=2048,
        description="A link a person can open to the span: its published page and section anchor.",
    )

    @model_validator(mode="after")
    def _span_is_ordered(self) -> Grounding:
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError("end must be >= start")
        return self


class Item(_Strict, DoorModel):
    """One retrievable unit: a proposition, a document chunk, a record, an artifact or a trace."""

    # context_id comes first so the link validators below can see it.
    context_id: str
    id: Id
    kind: Kind
    text: str = Field(min_length=1)
    mentions: list[Mention] = Field(default_factory=empty_list, max_length=LIMITS.mentions)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    status: Status = Status.ACTIVE
    created_at: CalendarMoment
    valid_from: CalendarMoment | None = None
    valid_to: CalendarMoment | None = None
    source_ids: list[Id] = Field(default_factory=empty_list, max_length=LIMITS.links)
    grounding: list[Grounding] = Field(default_factory=empty_list, max_length=LIMITS.links)
    supersedes: list[Id] = Field(default_factory=empty_list, max_length=LIMITS.links)
    contradicts: list[Id] = Field(default_factory=empty_list, max_length=LIMITS.links)
    metadata: dict[str, Any] = Field(default_factory=empty_dict, max_length=LIMITS.metadata_keys)
    embedding: list[float] | None = Field(default=None, min_length=1, max_length=LIMITS.embedding_dimension)

    @field_validator("context_id")
    @classmethod
    def _context_id_shape(cls, value: str) -> str:
        if not CONTEXT_ID_PATTERN.fullmatch(value):
            raise ValueError("must be 1-63 lowercase letters, digits, '-' or '_'")
        return value

    @field_validator("text")
    @classmethod
    def _text_size(cls, value: str) -> str:
        limit = LIMITS.text_bytes
        if len(value) * 4 > limit and len(value.encode("utf-8", "surrogatepass")) > limit:
            raise ValueError(f"may hold at most {LIMITS.text_bytes} bytes (UTF-8)")
        return value

    @field_validator("embedding")
    @classmethod
    def _storable_embedding(cls, value: list[float] | None) -> list[float] | None:
        """Stored as float32 and compared by cosine: every value must fit a float32, and a zero vector
        has no direction."""
        if value is None:
            return value
        if not all(-FLOAT32_MAX <= v <= FLOAT32_MAX for v in value):  # NaN fails both comparisons
            raise ValueError("must hold finite numbers within the float32 range")
        if not any(value):
            raise ValueError("must not be all zeros (a zero vector has no direction)")
        return value

    @field_validator("metadata")
    @classmethod
    def _metadata_size(cls, value: dict[str, Any]) -> dict[str, Any]:
        if _json_bytes(value) > LIMITS.metadata_bytes:
            raise ValueError(f"may hold at most {LIMITS.metadata_bytes} bytes as JSON")
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

    @model_validator(mode="after")
    def _hit_fields_fit(self) -> Item:
        """What a hit carries besides the text is bounded, so an answer of top_k hits stays under
        Lambda's response limit (``StorageLimits.hit_fields_bytes``)."""
        carried = [
            [m.model_dump(exclude_none=True) for m in self.mentions],
            self.source_ids,
            [g.uri for g in self.grounding],
            self.supersedes,
            self.metadata,
        ]
        if _json_bytes(carried) > LIMITS.hit_fields_bytes:
            raise ValueError(
                f"mentions, links and metadata may hold at most {LIMITS.hit_fields_bytes} bytes as JSON"
            )
        return self

    @property
    def heading(self) -> str:
        """The heading path of the passage this item is (a page's title, then its sections: the span of
        its own chunk's ``section``), or "" for an item that is no section of a file. Its words are
        searched and embedded with the item's text, though not returned with it: a page's chunks rarely
        repeat the title the question names."""
        return next((g.section for g in self.grounding if g.chunk_id == self.id and g.section), "")

    @property
    def embedding_text(self) -> str:
        """What the item's vector is computed from (``embedding_input``)."""
        return embedding_input(self.text, self.heading)

    @property
    def entity_ids(self) -> list[str]:
        """Distinct mentioned entities, in mention order."""
        return list(dict.fromkeys(m.entity_id for m in self.mentions))


def embedding_input(text: str, heading: str) -> str:
    """What a passage's vector is computed from: its heading path, then its text (the text alone when it
    has none). A page's title is then in every chunk's vector, as it is in its BM25 terms."""
    return f"{heading}\n{text}" if heading else text


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def _require_context(ref: str, info: ValidationInfo) -> None:
    """Every id an item names must carry the item's own context prefix: links never cross contexts."""
    context_id = info.data.get("context_id")
    if context_id is not None and context_of(ref) != context_id:
        raise ValueError(f"'{ref}' must start with '{context_id}:' (links may not cross contexts)")
