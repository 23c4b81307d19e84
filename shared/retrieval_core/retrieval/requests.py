"""The retrieve request as callers send it. Strict types: a bool is never a number, NaN is never a score.

Out-of-range ``top_k`` and ``depth`` are clamped (and the response reports what was used); anything
malformed is rejected with a message that names the field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    model_validator,
)

from ..models.item import Kind, Status
from ..models.limits import DEPTH_RANGE, TOP_K_RANGE, clamp
from ..packing.options import PackOptions
from .filters import Filter

MAX_TEXT_CHARS = 4000

FiniteNumber = Annotated[StrictFloat | StrictInt, Field(allow_inf_nan=False)]


class Mode(StrEnum):
    LEXICAL = "lexical"
    VECTOR = "vector"
    HYBRID = "hybrid"
    ENTITY = "entity"
    GRAPH_WALK = "graph_walk"
    TEMPORAL = "temporal"


TEXT_MODES = frozenset({Mode.LEXICAL, Mode.HYBRID})


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    start: AwareDatetime = Field(alias="from", description="Inclusive start, ISO-8601 with a zone.")
    end: AwareDatetime = Field(alias="to", description="Inclusive end, ISO-8601 with a zone.")

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end < self.start:
            raise ValueError("'to' must not be before 'from'")
        return self


class RetrieveRequest(BaseModel):
    """``POST /v1/retrieve`` body (and the ``request`` of a direct invocation)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"mode": "hybrid", "text": "who leads payments", "top_k": 5},
                {"mode": "graph_walk", "entity_id": "acme:person/alice-chen", "depth": 2},
                {
                    "mode": "lexical",
                    "text": "payments",
                    "filter": {
                        "all_of": [
                            {"equals": {"key": "metadata.team", "value": "payments"}},
                            {"gte": {"key": "created_at", "value": "2026-01-01T00:00:00Z"}},
                        ]
                    },
                },
            ]
        },
    )

    mode: Mode
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)] | None = None
    vector: list[FiniteNumber] | None = Field(default=None, min_length=1)
    entity_id: Annotated[str, Field(min_length=1, max_length=512)] | None = None
    window: Window | None = None
    top_k: StrictInt = Field(default=10, description="Clamped to 1..100.")
    depth: StrictInt = Field(default=1, description="Clamped to 1..5 (graph_walk, expand_graph).")
    min_score: Annotated[FiniteNumber, Field(ge=0, le=1)] | None = None
    kinds: list[Kind] | None = Field(default=None, min_length=1)
    weights: dict[Kind, Annotated[FiniteNumber, Field(ge=0)]] = Field(default_factory=dict)
    diversify: StrictBool = True
    statuses: list[Status] = Field(default_factory=lambda: [Status.ACTIVE], min_length=1)
    filter: Filter | None = Field(
        default=None,
        description="Typed conditions on metadata and built-in fields, ANDed with statuses and kinds and "
        "applied inside every mode's query (graph arms: on the propositions they return).",
    )
    expand_graph: StrictBool = Field(
        default=False,
        description="hybrid: append up to 10 edge propositions one hop from the top hits' entities, "
        "ranked below every fused hit and marked found_by ['graph'].",
    )
    session_id: Annotated[str, Field(min_length=1, max_length=256, pattern=r"^[A-Za-z0-9._:\-]+$")] | None = (
        None
    )
    session_limit: Annotated[StrictInt, Field(ge=1)] | None = None
    pack: PackOptions | None = Field(default=None, description="Build a context packet from these hits.")
    context_id: str | None = Field(
        default=None,
        description="Ignored: the context comes from the authorizer (or the direct-invocation envelope).",
        exclude=True,
    )

    @model_validator(mode="after")
    def _mode_needs(self) -> RetrieveRequest:
        if self.mode in TEXT_MODES and self.text is None:
            raise ValueError(f"text is required for mode '{self.mode}'")
        if self.mode is Mode.VECTOR and self.text is None and self.vector is None:
            raise ValueError("text or vector is required for mode 'vector'")
        if self.mode in (Mode.ENTITY, Mode.GRAPH_WALK) and self.entity_id is None:
            raise ValueError(f"entity_id is required for mode '{self.mode}'")
        if self.mode is Mode.TEMPORAL and self.window is None:
            raise ValueError("window is required for mode 'temporal'")
        return self

    @property
    def applied_top_k(self) -> int:
        return clamp(self.top_k, TOP_K_RANGE)

    @property
    def applied_depth(self) -> int:
        return clamp(self.depth, DEPTH_RANGE)
