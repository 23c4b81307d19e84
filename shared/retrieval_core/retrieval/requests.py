"""The retrieve request as callers send it. Strict types: a bool is never a number, NaN is never a score.

Out-of-range ``top_k`` and ``depth`` are clamped (and the response reports what was used); anything
malformed is rejected with a message that names the field.
"""

from __future__ import annotations

import math
import operator
import re
import struct
import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    JsonValue,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    field_validator,
    model_validator,
)
from pydantic_core import CoreSchema, core_schema

from ..errors import InvalidRequestError
from ..models.calendar import CalendarMoment
from ..models.filters import Filter
from ..models.hit_parts import HIT_PARTS_DESCRIPTION, HitPart
from ..models.limits import MAX_REQUEST_INT, WHOLE, DoorModel
from ..models.vocabulary import Kind, Status, empty_dict
from ..packing.options import PackOptions
from ..policy.state import IDEMPOTENCY_KEY_PATTERN, SESSION_ID_PATTERN
from .feedback import FeedbackOptions
from .rerank import RerankOptions
from .tuning import FusionOptions

MAX_TEXT_CHARS = 4000
MAX_TEXT_TERMS = 1000
"""OpenSearch refuses a query of more than 1,024 clauses and a match query makes one per term, so the
edge refuses long texts before they turn into a backend error."""

MAX_TOKEN_CHARS = 2048
"""A first page's token carries 11 characters per hit it showed: about 1.2 KB at top_k 100."""

RequestInt = Annotated[StrictInt, Field(le=MAX_REQUEST_INT), WHOLE]
# Bounded ints: pydantic's finiteness check converts an int to float, which overflows past 1e308.
FiniteNumber = (
    Annotated[StrictFloat, Field(allow_inf_nan=False)]
    | Annotated[StrictInt, Field(ge=-MAX_REQUEST_INT, le=MAX_REQUEST_INT)]
)
# Bounds on the number union: pydantic checks them after the union and, unable to say so in JSON
# Schema, would print its own "ge"/"le" keywords into the schema; these say it as JSON Schema does.
Fraction = Annotated[
    FiniteNumber, Field(ge=0, le=1), WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1})
]
NonNegativeNumber = Annotated[FiniteNumber, Field(ge=0), WithJsonSchema({"type": "number", "minimum": 0})]
SESSION_ID_JSON_PATTERN = f"^{SESSION_ID_PATTERN.pattern}$"
"""The policy's session id pattern as a JSON Schema ``pattern`` (which, unanchored, would search)."""
SessionId = Annotated[str, Field(min_length=1, max_length=256, pattern=SESSION_ID_JSON_PATTERN)]
IdempotencyKey = Annotated[str, Field(min_length=1, max_length=256, pattern=IDEMPOTENCY_KEY_PATTERN.pattern)]

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
    return _checked(SessionId, value, field)


def checked_idempotency_key(value: str | None, field: str) -> str | None:
    """An idempotency key from a header, validated like the body's (a 422 naming ``field``)."""
    return _checked(IdempotencyKey, value, field)


def _checked(annotation: Any, value: str | None, field: str) -> str | None:
    if value is None:
        return None
    try:
        return _adapter(annotation).validate_python(value)
    except ValidationError as error:
        raise InvalidRequestError(f"{field}: {error.errors()[0]['msg']}", field=field) from None


@cache
def _adapter(annotation: Any) -> TypeAdapter[str]:
    # Built when a header (or a path) first carries one: most retrieve requests send none, their session
    # id and key being in the body, which the request model validates.
    return TypeAdapter(annotation)


def check_vector(vector: list[float | int]) -> list[float | int]:
    """A vector OpenSearch can score: every component and its squared length fit a float32 (k-NN
    computes in float32), and its length is not zero (cosine similarity of a zero vector is undefined)."""
    try:
        # One pack of the whole vector rounds every component exactly as packing each would, in a
        # fraction of the time (a 384-dimension vector arrives with every vector and hybrid request);
        # ``f`` takes integers as they are.
        shape = f"<{len(vector)}f"
        components = struct.unpack(shape, struct.pack(shape, *vector))
    except (OverflowError, struct.error):
        raise ValueError("every component must fit a 32-bit float (|x| <= 3.4e38)") from None
    squared_length = math.fsum(map(operator.mul, components, components))
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
    AUTO = "auto"


MODE_NEEDS: dict[str, tuple[str, ...]] = {
    Mode.LEXICAL: ("text",),
    Mode.HYBRID: ("text",),
    Mode.VECTOR: ("text", "vector"),
    Mode.ENTITY: ("entity_id",),
    Mode.GRAPH_WALK: ("entity_id",),
    Mode.TEMPORAL: ("window",),
    Mode.AUTO: ("text",),
}
"""The fields each mode needs, at least one of each (vector mode embeds ``text`` or takes ``vector``)."""

SERVED_MODES = "modes"
"""The validation context's key for the modes a deployment serves beyond ``Mode`` (a test's toy mode,
registered in its ``retrieval.modes.Modes``): each one's name and the fields it needs. The public API's
modes are ``Mode`` alone; no context, no other mode."""


def _served(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, str) and value in _served_needs(info):
            return value
        raise  # the enum's own error, naming the public modes


def _served_needs(info: ValidationInfo) -> Mapping[str, tuple[str, ...]]:
    context = info.context if isinstance(info.context, Mapping) else {}
    served: Mapping[str, tuple[str, ...]] = context.get(SERVED_MODES, {})
    return served


def _echoed(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, str):
            return value  # a served mode's name: the request that named it was checked at the door
        raise


def _mode_schema(_type: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
    """``Mode``'s schema (its validation, its OpenAPI component, its serialization), but for a served
    mode's name, no ``Mode`` member, which is written as the string it is."""
    schema: dict[str, Any] = dict(handler(Mode))
    schema["serialization"] = core_schema.wrap_serializer_function_ser_schema(_written, schema=dict(schema))
    return cast(CoreSchema, schema)


def _written(mode: str, as_mode: SerializerFunctionWrapHandler) -> Any:
    return as_mode(mode) if isinstance(mode, Mode) else mode


_MODE_SCHEMA = GetPydanticSchema(_mode_schema)
ModeName = Annotated[str, _MODE_SCHEMA, WrapValidator(_served)]
"""A request's mode: one of ``Mode`` (what the OpenAPI document lists), or one the validation context
serves (``SERVED_MODES``)."""
EchoedMode = Annotated[str, _MODE_SCHEMA, WrapValidator(_echoed)]
"""A response's mode: the request's, echoed (documented as ``Mode``)."""


def mode_needs_schema() -> list[JsonValue]:
    """``MODE_NEEDS`` as JSON Schema conditions, so the OpenAPI document states it too: the field is
    present and not null (``entity_id: null`` is as missing to the validator as to the schema). Tool
    input schemas leave these out (hosts refuse conditions at a tool schema's root, docs/AGENT_HOSTS.md):
    there the ``mode`` description says it in words."""
    conditions: list[JsonValue] = []
    for mode, needs in MODE_NEEDS.items():
        present: list[JsonValue] = [
            {"required": [name], "properties": {name: {"not": {"type": "null"}}}} for name in needs
        ]
        # One field is that field's condition itself: a one-element anyOf is what linters call illogical.
        then = present[0] if len(present) == 1 else {"anyOf": present}
        conditions.append(
            {"if": {"properties": {"mode": {"const": str(mode)}}, "required": ["mode"]}, "then": then}
        )
    return conditions


def _describe_mode_needs() -> str:
    return "; ".join(
        f"{mode} needs {' or '.join(f'`{n}`' for n in needs)}" for mode, needs in MODE_NEEDS.items()
    )


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    start: CalendarMoment = Field(alias="from", description="Inclusive start, ISO-8601 with a zone.")
    end: CalendarMoment = Field(alias="to", description="Inclusive end, ISO-8601 with a zone.")

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, moment: datetime) -> datetime:
        """In UTC: every offset Python parses (up to +-24:00) is one the index takes (it refuses offsets
        past +-18:00); the calendar (``CalendarMoment``) has made sure UTC can hold it."""
        return moment.astimezone(UTC)

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end < self.start:
            raise ValueError("'to' must not be before 'from'")
        return self


class RetrieveRequest(DoorModel):
    """``POST /v1/retrieve`` body (and the ``request`` of a direct invocation)."""

    model_config = ConfigDict(
        extra="forbid",
        title="RetrieveRequest",
        json_schema_extra={
            "allOf": mode_needs_schema(),
            "examples": [
                {"mode": "hybrid", "text": "who leads payments", "top_k": 5},
                {"mode": "auto", "text": "Who led the Payments team in March 2026?", "top_k": 5},
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

    mode: ModeName = Field(
        description="How to search: auto (use it when unsure: hybrid search that reads the question for "
        "the context's entity names, the type of entity it asks for, time cues and kind words, adds arms "
        "for them, and lists what it inferred in applied.inferred), lexical (BM25 keywords), vector (k-NN "
        "on meaning), hybrid (both, fused), "
        "entity (items mentioning entity_id), graph_walk (propositions up to depth hops from entity_id), "
        "temporal (items valid or created in window). Each mode needs a field: "
        + _describe_mode_needs()
        + "; without it the request is refused (422)."
    )
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)] | None = Field(
        default=None,
        description=f"The question or keywords (lexical, hybrid, vector); at most {MAX_TEXT_TERMS:,} words.",
    )
    vector: list[FiniteNumber] | None = Field(
        default=None,
        min_length=1,
        description="vector mode: a query embedding of the index's dimension, instead of text.",
    )
    entity_id: Annotated[str, Field(min_length=1, max_length=512)] | None = Field(
        default=None,
        description="entity and graph_walk: an entity id of the caller's context (acme:person/alice-chen). "
        "auto: the entity to focus on (instead of any the question names).",
    )
    window: Window | None = Field(
        default=None,
        description="temporal: items created in, or valid during, this window. auto: the window to prefer "
        "(instead of any the question names).",
    )
    infer: StrictBool = Field(
        default=True,
        description="auto: read entities, time and kinds from the text (false: auto is plain hybrid plus "
        "any entity_id or window sent). Fields sent explicitly always win over what is inferred.",
    )
    now: CalendarMoment | None = Field(
        default=None,
        description='auto: the moment relative time cues ("last month", "currently") are read against, '
        "in its zone; default: the time of the first page's request, in UTC (its next_token carries that "
        "moment, so every page reads the question alike).",
    )
    top_k: RequestInt = Field(default=10, description="Hits per page; clamped to 1..100.")
    depth: RequestInt = Field(default=1, description="Clamped to 1..5 (graph_walk, expand_graph).")
    min_score: Fraction | None = Field(
        default=None,
        description="Leave out hits scoring below this (0..1, scores after weights; hybrid scores are "
        "fused ranks, not probabilities).",
    )
    kinds: list[Kind] | None = Field(
        default=None, min_length=1, description="Only these item kinds (default: every kind)."
    )
    weights: dict[Kind, NonNegativeNumber] = Field(
        default_factory=empty_dict,
        description='A multiplier per kind applied to scores before ordering ({"document": 0.5}); '
        "a kind not named keeps 1.",
    )
    diversify: StrictBool = Field(
        default=True, description="Interleave kinds within a page so one kind does not fill it."
    )
    pages_apart: StrictBool = Field(
        default=True,
        description="At most one chunk of a document (file) until every document ranked has shown its "
        "best chunk; a document's other chunks follow, reachable by paging. False: chunks in score order.",
    )
    statuses: list[Status] = Field(
        default_factory=lambda: [Status.ACTIVE],
        min_length=1,
        description="Only items with these statuses (default ACTIVE; add SUPERSEDED to see history).",
    )
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
    hops: RequestInt | None = Field(
        default=None,
        description="hybrid and auto: how many passages deep to follow links between pages (clamped to "
        "1..3): 2 adds the pages the top hits name (a bridge passage that shares no word with the "
        "question can rank first), each with its path; 1 is text search alone. Default: hybrid 1; auto "
        '2 when the question reads as multi-hop ("the director of X", "born first, X or Y"), else 1.',
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
    session_id: SessionId | None = Field(
        default=None,
        description="A session for deduplication, a budget and stable [S#] citations (a repeated "
        "query is refused with duplicate_query).",
    )
    session_limit: Annotated[StrictInt, Field(ge=1, le=MAX_REQUEST_INT), WHOLE] | None = Field(
        default=None, description="Lowers the session's budget of answered queries (never raises it)."
    )
    idempotency_key: IdempotencyKey | None = Field(
        default=None,
        description="Needs a session. The same key with the same request (the packet may differ) returns "
        "the first answer again, spending nothing: safe retries. The same key with another request is 422 "
        "idempotency_key_reused; while the first is running, 409 request_in_progress. The API also takes "
        "the Idempotency-Key header.",
    )
    pack: PackOptions | None = Field(default=None, description="Build a context packet from these hits.")
    include: list[HitPart] | None = Field(
        default=None,
        min_length=1,
        description="The optional parts each hit carries (default: all of them). "
        + HIT_PARTS_DESCRIPTION
        + " id, kind, score, relevance, status, confidence, created_at and found_by are always there.",
    )
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
    def _mode_needs(self, info: ValidationInfo) -> RetrieveRequest:
        needs = MODE_NEEDS.get(self.mode) or _served_needs(info)[self.mode]
        if all(getattr(self, name) is None for name in needs):
            raise ValueError(f"{' or '.join(needs)} is required for mode '{self.mode}'")
        if self.hops is not None and self.mode not in (Mode.HYBRID, Mode.AUTO):
            raise ValueError("hops is for hybrid and auto")
        if self.mode == Mode.AUTO and self.expand_graph:
            raise ValueError("expand_graph is for hybrid; auto adds a linked entity's edges as an arm itself")
        return self

    def __repr__(self) -> str:
        # Powertools formats every route's arguments for a debug line, log level notwithstanding: the
        # default repr cost a request ~30 us (and 0.1 ms more when it spelled out a query vector).
        shown = self.model_dump_json(exclude_defaults=True, exclude={"vector"})
        vector = "" if self.vector is None else f" vector=<{len(self.vector)} numbers>"
        return f"RetrieveRequest({shown}{vector})"
