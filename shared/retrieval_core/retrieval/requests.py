"""The retrieve request as callers send it. Strict types: a bool is never a number, NaN is never a score.

Out-of-range ``top_k`` and ``depth`` are clamped (and the response reports what was used); anything
malformed is rejected with a message that names the field.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictFloat,
    StrictInt,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import InvalidRequestError
from ..models.filters import Filter
from ..models.limits import DEPTH_RANGE, MAX_REQUEST_INT, TOP_K_RANGE, clamp
from ..models.vocabulary import Kind, Status
from ..packing.options import PackOptions
from ..policy.state import SESSION_ID_PATTERN
from .feedback import FeedbackOptions
from .rerank import RerankOptions
from .tuning import FusionOptions

MAX_TEXT_CHARS = 4000
MAX_TEXT_TERMS = 1000
"""OpenSearch refuses a query of more than 1,024 clauses and a match query makes one per term, so the
edge refuses long texts before they turn into a backend error."""

MAX_TOKEN_CHARS = 2048
"""A first page's token carries 11 characters per hit it showed: about 1.2 KB at top_k 100."""

RequestInt = Annotated[StrictInt, Field(le=MAX_REQUEST_INT)]
# Bounded ints: pydantic's finiteness check converts an int to float, which overflows past 1e308.
FiniteNumber = (
    Annotated[StrictFloat, Field(allow_inf_nan=False)]
    | Annotated[StrictInt, Field(ge=-MAX_REQUEST_INT, le=MAX_REQUEST_INT)]
)
SessionId = Annotated[str, Field(min_length=1, max_length=256, pattern=SESSION_ID_PATTERN.pattern)]
_SESSION_ID: TypeAdapter[str] = TypeAdapter(SessionId)

# An upper bound on the terms OpenSearch's standard tokenizer makes of a text: each Han or Hiragana
# character is a term of its own, so is each symbol (emoji); any other run of letters and digits is one.
_ONE_TERM_EACH = (
    "\u3040-\u309f\u2e80-\u2fff\u3005-\u3007\u3021-\u3029\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
_TERMS = re.compile(f"[{_ONE_TERM_EACH}]|[^\\W_{_ONE_TERM_EACH}]+|[^\\w\\s]")
_FLOAT32_SMALLEST_NORMAL = 1.1754943508222875e-38
_FLOAT32_MAX = 3.4028234663852886e38


def count_terms(text: str) -> int:
    """At least as many terms as the index analyzer makes of ``text`` (punctuation marks make none)."""
    return sum(1 for match in _TERMS.finditer(text) if not _is_punctuation(match.group()))


def _is_punctuation(term: str) -> bool:
    return len(term) == 1 and unicodedata.category(term)[0] in "PZC"


def checked_session_id(value: str | None, field: str) -> str | None:
    """A session id from a header or a path, validated like the body's (a 422 naming ``field``)."""
    if value is None:
        return None
    try:
        return _SESSION_ID.validate_python(value)
    except ValidationError as error:
        raise InvalidRequestError(f"{field}: {error.errors()[0]['msg']}", field=field) from None


def check_vector(vector: list[float | int]) -> list[float | int]:
    """A vector OpenSearch can score: every component and its squared length fit a float32 (k-NN
    computes in float32), and its length is not zero (cosine similarity of a zero vector is undefined)."""
    try:
        floats = [float(value) for value in vector]
        # One pack of the whole vector rounds every component exactly as packing each would, in a
        # fraction of the time (a 384-dimension vector arrives with every vector and hybrid request).
        shape = f"<{len(floats)}f"
        components = struct.unpack(shape, struct.pack(shape, *floats))
    except (OverflowError, struct.error):
        raise ValueError("every component must fit a 32-bit float (|x| <= 3.4e38)") from None
    squared_length = math.fsum(c * c for c in components)
    if not squared_length >= _FLOAT32_SMALLEST_NORMAL:
        raise ValueError("the vector's length must not be zero (or too small to represent)")
    if not squared_length <= _FLOAT32_MAX:
        raise ValueError("the vector's length is too large to represent; scale it down")
    return vector


class Mode(StrEnum):
    LEXICAL = "lexical"
    VECTOR = "vector"
    HYBRID = "hybrid"
    ENTITY = "entity"
    GRAPH_WALK = "graph_walk"
    TEMPORAL = "temporal"


MODE_NEEDS: dict[Mode, tuple[str, ...]] = {
    Mode.LEXICAL: ("text",),
    Mode.HYBRID: ("text",),
    Mode.VECTOR: ("text", "vector"),
    Mode.ENTITY: ("entity_id",),
    Mode.GRAPH_WALK: ("entity_id",),
    Mode.TEMPORAL: ("window",),
}
"""The fields each mode needs, at least one of each (vector mode embeds ``text`` or takes ``vector``)."""


def _mode_needs_schema() -> list[JsonValue]:
    """``MODE_NEEDS`` as JSON Schema conditions, so the OpenAPI document states it too."""
    return [
        {
            "if": {"properties": {"mode": {"const": str(mode)}}, "required": ["mode"]},
            "then": {"anyOf": [{"required": [name]} for name in needs]},
        }
        for mode, needs in MODE_NEEDS.items()
    ]


def _describe_mode_needs() -> str:
    return "; ".join(
        f"{mode} needs {' or '.join(f'`{n}`' for n in needs)}" for mode, needs in MODE_NEEDS.items()
    )


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
            "allOf": _mode_needs_schema(),
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
            ],
        },
    )

    mode: Mode = Field(description=_describe_mode_needs() + ".")
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)] | None = None
    vector: list[FiniteNumber] | None = Field(default=None, min_length=1)
    entity_id: Annotated[str, Field(min_length=1, max_length=512)] | None = None
    window: Window | None = None
    top_k: RequestInt = Field(default=10, description="Clamped to 1..100.")
    depth: RequestInt = Field(default=1, description="Clamped to 1..5 (graph_walk, expand_graph).")
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
    fusion: FusionOptions | None = Field(
        default=None, description="hybrid: how the arms are fused (unset fields: the deployment's)."
    )
    rerank: RerankOptions | None = Field(
        default=None, description="Rerank the top hits after fusion (every ranked mode but graph_walk)."
    )
    feedback: FeedbackOptions | None = Field(
        default=None,
        description="lexical and hybrid: pseudo-relevance feedback (a second search with terms from the "
        "first pass's top hits, in the same context and filter).",
    )
    session_id: SessionId | None = None
    session_limit: Annotated[RequestInt, Field(ge=1)] | None = None
    pack: PackOptions | None = Field(default=None, description="Build a context packet from these hits.")
    next_token: Annotated[str, Field(min_length=1, max_length=MAX_TOKEN_CHARS)] | None = Field(
        default=None,
        description="The previous page's next_token: this request then answers the next top_k of the "
        "same ranking. The rest of the body must be the first page's (top_k, "
        "session_id, session_limit and pack may change).",
    )
    context_id: Any = Field(
        default=None,
        description="Ignored, whatever its value: the context comes from the authorizer (or the "
        "direct-invocation envelope).",
        exclude=True,
    )

    @field_validator("text")
    @classmethod
    def _few_enough_terms(cls, text: str | None) -> str | None:
        if text is not None and count_terms(text) > MAX_TEXT_TERMS:
            raise ValueError(f"at most {MAX_TEXT_TERMS} words (or CJK characters, or symbols)")
        return text

    @field_validator("vector")
    @classmethod
    def _scorable(cls, vector: list[float | int] | None) -> list[float | int] | None:
        return None if vector is None else check_vector(vector)

    @model_validator(mode="after")
    def _mode_needs(self) -> RetrieveRequest:
        needs = MODE_NEEDS[self.mode]
        if all(getattr(self, name) is None for name in needs):
            raise ValueError(f"{' or '.join(needs)} is required for mode '{self.mode}'")
        return self

    def __repr__(self) -> str:
        # Powertools formats every route's arguments for a debug line, log level notwithstanding: the
        # default repr cost a request ~30 us (and 0.1 ms more when it spelled out a query vector).
        shown = self.model_dump_json(exclude_defaults=True, exclude={"vector"})
        vector = "" if self.vector is None else f" vector=<{len(self.vector)} numbers>"
        return f"RetrieveRequest({shown}{vector})"

    @property
    def applied_top_k(self) -> int:
        return clamp(self.top_k, TOP_K_RANGE)

    @property
    def applied_depth(self) -> int:
        return clamp(self.depth, DEPTH_RANGE)
