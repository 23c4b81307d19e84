"""The filter language of ``retrieve``: typed leaves over metadata and built-in fields, combined with
``all_of`` / ``any_of`` / ``none_of``.

The request model checks everything the product fixes (operators, built-in keys and their types, limits);
``resolve`` then checks metadata keys against the deployment's declared schema, so a filter the index
cannot apply exactly (a range on a keyword, say) is refused with its key and reason instead of being
answered loosely. Error locations are paths inside the filter (``filter.all_of[2].gte.value``).
"""

from __future__ import annotations

import math
import re
from datetime import UTC
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from .errors import FilterNotApplicableError
from .limits import FLOAT32_MAX
from .metadata import (
    METADATA_NAME_PATTERN,
    FieldType,
    MetadataSchema,
    parse_date,
    value_problem,
)
from .vocabulary import Kind, Status

MAX_LEVELS = 5
MAX_LEAVES = 50
MAX_VALUES = 100
METADATA_PREFIX = "metadata."

BUILTIN_FIELDS: dict[str, FieldType] = {
    "kind": FieldType.KEYWORD,
    "status": FieldType.KEYWORD,
    "confidence": FieldType.NUMBER,
    "created_at": FieldType.DATE,
    "valid_from": FieldType.DATE,
    "valid_to": FieldType.DATE,
    "source_ids": FieldType.KEYWORD,
    "mentions.entity_id": FieldType.KEYWORD,
    "mentions.type": FieldType.KEYWORD,
}
ENUMERATED: dict[str, frozenset[str]] = {
    "kind": frozenset(k.value for k in Kind),
    "status": frozenset(s.value for s in Status),
}
RANGEABLE = frozenset({FieldType.NUMBER, FieldType.DATE})
FLOAT32_FIELDS = frozenset({"confidence"})
"""Built-in numbers the index stores as float32 (declared metadata numbers are doubles): a value
outside float32 is refused here, not by the index."""

SCALAR_SCHEMA = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}
Scalar = Annotated[Any, WithJsonSchema(SCALAR_SCHEMA)]
KEY_PATTERN = (
    "^(?:"
    + "|".join(re.escape(name) for name in BUILTIN_FIELDS)
    + "|"
    + re.escape(METADATA_PREFIX)
    + METADATA_NAME_PATTERN.pattern.removeprefix("^").removesuffix("$")
    + ")$"
)
"""What ``_check_key`` takes, as JSON Schema's ``pattern`` (so a client generating from the OpenAPI
document never sends a key the API refuses)."""
Key = Annotated[
    str,
    Field(
        min_length=1,
        max_length=80,
        json_schema_extra={"pattern": KEY_PATTERN},
        description="metadata.<name>, or kind, status, confidence, created_at, valid_from, valid_to, "
        "source_ids, mentions.entity_id, mentions.type",
    ),
]


def _check_key(key: str) -> str:
    if key in BUILTIN_FIELDS:
        return key
    if key.startswith(METADATA_PREFIX) and METADATA_NAME_PATTERN.fullmatch(key[len(METADATA_PREFIX) :]):
        return key
    raise ValueError(
        f"unknown key '{key}': use metadata.<name> (letters, digits, '_' or '-') or one of "
        + ", ".join(BUILTIN_FIELDS)
    )


def _check_scalar(key: str | None, value: Any, *, allowed: frozenset[FieldType] | None = None) -> Any:
    """A string, finite number or boolean; for a built-in key, of that key's type (dates normalised)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number (NaN and infinities are not values)")
    if not isinstance(value, str | int | float | bool):
        raise ValueError("must be a string, a number or a boolean")
    if key is None or key not in BUILTIN_FIELDS:
        return value
    field_type = BUILTIN_FIELDS[key]
    problem = value_problem(field_type, value)
    if problem is not None:
        raise ValueError(f"{problem} ('{key}' is a {field_type})")
    if key in ENUMERATED and value not in ENUMERATED[key]:
        raise ValueError(f"must be one of {', '.join(sorted(ENUMERATED[key]))}")
    if key in FLOAT32_FIELDS and isinstance(value, int | float) and not -FLOAT32_MAX <= value <= FLOAT32_MAX:
        raise ValueError(f"must lie within the float32 range, +/-{FLOAT32_MAX:.7g} ('{key}' is a float32)")
    return normalise(field_type, value)


def normalise(field_type: FieldType, value: Any) -> Any:
    """Dates as UTC with a ``Z``; everything else as given."""
    if field_type is FieldType.DATE:
        moment = parse_date(value)
        assert moment is not None  # checked by value_problem
        return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return value


class _Leaf(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: Key

    @field_validator("key")
    @classmethod
    def _known_key(cls, key: str) -> str:
        return _check_key(key)


class Match(_Leaf):
    """``equals`` / ``not_equals`` / ``list_contains``: some value of ``key`` is (not) ``value``."""

    value: Scalar = Field(
        description="A string, number, boolean or ISO-8601 timestamp, of the key's type (kind and status: "
        "one of their values)."
    )

    @field_validator("value")
    @classmethod
    def _typed(cls, value: Any, info: ValidationInfo) -> Any:
        return _check_scalar(info.data.get("key"), value)


class Membership(_Leaf):
    """``in`` / ``not_in``: some value of ``key`` is (not) one of ``value``."""

    value: list[Scalar] = Field(min_length=1, max_length=MAX_VALUES, description="The values to match.")

    @field_validator("value")
    @classmethod
    def _typed(cls, values: list[Any], info: ValidationInfo) -> list[Any]:
        checked = []
        for position, value in enumerate(values):
            try:
                checked.append(_check_scalar(info.data.get("key"), value))
            except ValueError as error:
                raise ValueError(f"value[{position}] {error}") from None
        return list(dict.fromkeys(checked))


class Range(_Leaf):
    """``gt`` / ``gte`` / ``lt`` / ``lte`` on numbers and dates."""

    value: Scalar = Field(description="A number or an ISO-8601 timestamp with a zone.")

    @field_validator("key")
    @classmethod
    def _rangeable(cls, key: str) -> str:
        if key in BUILTIN_FIELDS and BUILTIN_FIELDS[key] not in RANGEABLE:
            raise ValueError(f"'{key}' is a {BUILTIN_FIELDS[key]}: ranges apply to numbers and dates")
        return key

    @field_validator("value")
    @classmethod
    def _typed(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be a number or an ISO-8601 timestamp with a zone")
        return _check_scalar(info.data.get("key"), value)


class Pattern(_Leaf):
    """``starts_with`` / ``string_contains``: case-sensitive, on strings."""

    value: Annotated[str, Field(min_length=1, max_length=256, strict=True)] = Field(
        description="The substring, case-sensitive."
    )

    @field_validator("key")
    @classmethod
    def _textual(cls, key: str) -> str:
        if key in BUILTIN_FIELDS and BUILTIN_FIELDS[key] is not FieldType.KEYWORD:
            raise ValueError(f"'{key}' is a {BUILTIN_FIELDS[key]}: patterns apply to strings")
        return key


class Presence(_Leaf):
    """``exists``: ``key`` has at least one value."""


COMBINATORS = ("all_of", "any_of", "none_of")
LEAVES = (
    "equals",
    "not_equals",
    "in",
    "not_in",
    "gt",
    "gte",
    "lt",
    "lte",
    "starts_with",
    "list_contains",
    "string_contains",
    "exists",
)
OPERATORS = (*COMBINATORS, *LEAVES)
Children = Annotated[list["Filter"], Field(min_length=1)]


class Filter(BaseModel):
    """One node: exactly one operator. Leaves compare a key; combinators hold at least one node."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        json_schema_extra={
            "minProperties": 1,
            "maxProperties": 1,
            "examples": [
                {
                    "all_of": [
                        {"equals": {"key": "metadata.team", "value": "payments"}},
                        {"gte": {"key": "created_at", "value": "2026-01-01T00:00:00Z"}},
                        {"list_contains": {"key": "mentions.entity_id", "value": "acme:person/alice-chen"}},
                    ]
                }
            ],
        },
    )

    all_of: Children | None = Field(default=None, description="Every node holds.")
    any_of: Children | None = Field(default=None, description="At least one node holds.")
    none_of: Children | None = Field(default=None, description="No node holds.")
    equals: Match | None = Field(default=None, description="Some value of key is value.")
    not_equals: Match | None = Field(default=None, description="No value of key is value.")
    in_: Membership | None = Field(default=None, alias="in", description="Some value of key is in value.")
    not_in: Membership | None = Field(default=None, description="No value of key is in value.")
    gt: Range | None = Field(default=None, description="Greater than value (numbers, dates).")
    gte: Range | None = Field(default=None, description="At least value (numbers, dates).")
    lt: Range | None = Field(default=None, description="Less than value (numbers, dates).")
    lte: Range | None = Field(default=None, description="At most value (numbers, dates).")
    starts_with: Pattern | None = Field(default=None, description="A string value starts with value.")
    list_contains: Match | None = Field(default=None, description="The list key contains value.")
    string_contains: Pattern | None = Field(default=None, description="A string value contains value.")
    exists: Presence | None = Field(default=None, description="key has at least one value.")

    _levels: int = PrivateAttr(default=1)
    _leaves: int = PrivateAttr(default=1)

    @model_validator(mode="before")
    @classmethod
    def _known_operators(cls, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = [name for name in data if name not in OPERATORS]
            if unknown:
                raise ValueError(f"unknown operator '{unknown[0]}'; use one of {', '.join(OPERATORS)}")
        return data

    @model_validator(mode="after")
    def _one_operator_within_limits(self) -> Filter:
        present = [name for name in OPERATORS if self.operand(name) is not None]
        if len(present) != 1:
            raise ValueError(f"needs exactly one operator, got {len(present)}")
        children = self.children
        if children is not None:
            self._levels = 1 + max(child._levels for child in children)
            self._leaves = sum(child._leaves for child in children)
        if self._levels > MAX_LEVELS:
            raise ValueError(f"nests {self._levels} levels deep; at most {MAX_LEVELS} (a leaf is one level)")
        if self._leaves > MAX_LEAVES:
            raise ValueError(f"holds {self._leaves} leaves; at most {MAX_LEAVES}")
        return self

    def operand(self, name: str) -> Any:
        return getattr(self, "in_" if name == "in" else name)

    @property
    def operator(self) -> str:
        return next(name for name in OPERATORS if self.operand(name) is not None)

    @property
    def children(self) -> list[Filter] | None:
        operand = self.operand(self.operator)
        return operand if isinstance(operand, list) else None

    def echo(self) -> dict[str, Any]:
        """The normalised filter as the response reports it."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def metadata_names(node: Filter) -> set[str]:
    """The metadata keys (``metadata.<name>``) the filter names, at any depth."""
    children = node.children
    if children is not None:
        return set().union(*(metadata_names(child) for child in children))
    key = node.operand(node.operator).key
    return {key[len(METADATA_PREFIX) :]} if key.startswith(METADATA_PREFIX) else set()


def resolve(node: Filter, schema: MetadataSchema, path: str = "filter") -> Filter:
    """``node`` with metadata keys checked against the declared schema and their dates normalised.

    Raises ``FilterNotApplicableError`` naming the leaf's path, its key and why the index cannot apply it.
    """
    operator = node.operator
    children = node.children
    if children is not None:
        resolved = [resolve(child, schema, f"{path}.{operator}[{i}]") for i, child in enumerate(children)]
        return node.model_copy(update={operator: resolved})
    leaf: _Leaf = node.operand(operator)
    if not leaf.key.startswith(METADATA_PREFIX):
        return node
    name = leaf.key[len(METADATA_PREFIX) :]
    declared = schema.get(name)
    field_type = declared or FieldType.KEYWORD
    leaf_path = f"{path}.{operator}"
    if isinstance(leaf, Range) and field_type not in RANGEABLE:
        raise FilterNotApplicableError(
            leaf_path,
            leaf.key,
            _indexed_as(declared)
            + "; ranges apply to keys declared number or date: declare it in RETRIEVAL_METADATA_FIELDS "
            + f'(template parameter MetadataFields, e.g. {{"{name}": "number"}}), then run `retrieval '
            + "rebuild` (the rebuild function when deployed) so the index compares it as declared; or "
            + "give it a typed sidecar value (NUMBER) in the context's files, which types a new key",
        )
    if isinstance(leaf, Pattern) and field_type is not FieldType.KEYWORD:
        raise FilterNotApplicableError(
            leaf_path, leaf.key, f"indexed as {field_type}; patterns apply to strings"
        )
    if isinstance(leaf, Match | Range):
        value = _typed_value(leaf_path, leaf.key, declared, field_type, leaf.value)
        return node.model_copy(update={_field(operator): leaf.model_copy(update={"value": value})})
    if isinstance(leaf, Membership):
        values = [
            _typed_value(f"{leaf_path}.value[{i}]", leaf.key, declared, field_type, v)
            for i, v in enumerate(leaf.value)
        ]
        return node.model_copy(update={_field(operator): leaf.model_copy(update={"value": values})})
    return node


def _typed_value(path: str, key: str, declared: FieldType | None, field_type: FieldType, value: Any) -> Any:
    problem = value_problem(field_type, value)
    if problem is not None:
        raise FilterNotApplicableError(path, key, f"{_indexed_as(declared)}: the value {problem}")
    return normalise(field_type, value)


def _indexed_as(declared: FieldType | None) -> str:
    if declared is None:
        return "not declared, so indexed as an exact string"
    return f"declared {declared}"


def _field(operator: str) -> str:
    return "in_" if operator == "in" else operator
