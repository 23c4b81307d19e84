"""Bedrock Knowledge Bases' metadata sidecar, ``<file>.metadata.json`` (at most 10 KB), in both forms:

    {"metadataAttributes": {"team": "payments", "year": 2024}}
    {"metadataAttributes": {"year": {"value": {"type": "NUMBER", "numberValue": 2024},
                                     "includeForEmbedding": false}}}

(typed values: ``STRING`` stringValue, ``NUMBER`` numberValue, ``BOOLEAN`` booleanValue, ``STRING_LIST``
stringListValue), and for a CSV the record form ``documentStructureConfiguration``: which columns are
the row's content and which its metadata. The attributes become every chunk's ``metadata``; a value
that contradicts the deployment's declared metadata types, or the types the context's typed sidecars
declared (docs/DOCUMENTS.md, "Typed sidecars declare their keys"), fails the file, naming the key.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..models.limits import LIMITS
from ..models.metadata import METADATA_NAME_PATTERN, FieldType, MetadataSchema, metadata_problems
from . import bounded_json
from .errors import DocumentRejectedError
from .limits import DocumentLimits

TYPED_VALUES = {
    "STRING": "stringValue",
    "NUMBER": "numberValue",
    "BOOLEAN": "booleanValue",
    "STRING_LIST": "stringListValue",
}


@dataclass(frozen=True)
class RecordStructure:
    """``recordBasedStructureMetadata``: a row's text is its content fields; its metadata the included
    fields (all others when none is listed) less the excluded ones."""

    content_fields: tuple[str, ...]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sidecar:
    metadata: dict[str, Any] = field(default_factory=dict)
    records: RecordStructure | None = None
    typed: dict[str, FieldType] = field(default_factory=dict)
    """The attributes a typed value gave a type (NUMBER, BOOLEAN; STRING and STRING_LIST: exact strings)."""

    def undeclared(self, schema: MetadataSchema) -> str | None:
        """One line for the file's report when a typed attribute's key is not declared, so it filters
        as an exact string (where no context types its own keys: the pool model): the declaration to add
        and the rebuild it needs."""
        missing = {n: t for n, t in self.typed.items() if n not in schema and t is not FieldType.KEYWORD}
        if not missing:
            return None
        return (
            f"typed sidecar values ({', '.join(sorted(missing))}) are not declared, so they filter as exact "
            f"strings: add {_declaration(missing)} to RETRIEVAL_METADATA_FIELDS (MetadataFields), then "
            "`retrieval rebuild`"
        )

    def retyped(self, indexed: MetadataSchema) -> str | None:
        """One line for the file's report when the context's index already maps typed attributes
        otherwise (earlier files gave the key other values, so it is indexed as they were): the
        declaration that changes the key's type, and the rebuild that applies it."""
        if not indexed:
            return None
        wanted = {name: self.typed[name] for name in indexed}
        was = ", ".join(f"{name} as {kind}" for name, kind in sorted(indexed.items()))
        return (
            f"typed sidecar values ({', '.join(sorted(wanted))}) keep the type this context indexes them "
            f"with ({was}, from earlier files): to change it, add {_declaration(wanted)} to "
            "RETRIEVAL_METADATA_FIELDS (MetadataFields), then `retrieval rebuild`"
        )


def _declaration(types: MetadataSchema) -> str:
    return json.dumps({name: str(kind) for name, kind in sorted(types.items())})


NO_SIDECAR = Sidecar()


def read_sidecar(
    data: bytes, schema: MetadataSchema, limits: DocumentLimits, context: MetadataSchema | None = None
) -> Sidecar:
    """The sidecar's metadata and record structure; ``DocumentRejectedError`` says what is wrong.
    ``schema`` is the deployment's declaration, ``context`` the types the context's own index gives its
    keys (what its typed sidecars declared); the deployment's wins where both type a key."""
    if len(data) > limits.sidecar_bytes:
        raise DocumentRejectedError(
            f"has a sidecar of {len(data):,} bytes, more than {limits.sidecar_bytes:,} (Bedrock's limit)"
        )
    try:
        document = bounded_json.loads(data, limits.json_depth)
    except bounded_json.TooDeepError as error:
        raise DocumentRejectedError(f"has a sidecar that {error} (json_depth)") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise DocumentRejectedError(f"has a sidecar that is not JSON ({error})") from None
    if not isinstance(document, dict):
        raise DocumentRejectedError("has a sidecar that is not a JSON object")
    unknown = set(document) - {"metadataAttributes", "documentStructureConfiguration"}
    if unknown:
        raise DocumentRejectedError(f"has a sidecar with unknown keys {sorted(unknown)}")
    attributes = document.get("metadataAttributes", {})
    if not isinstance(attributes, dict):
        raise DocumentRejectedError("has a sidecar whose metadataAttributes is not an object")
    if len(attributes) > LIMITS.metadata_keys:
        raise DocumentRejectedError(f"has a sidecar with more than {LIMITS.metadata_keys} attributes")
    metadata = {_name(name): _value(name, value) for name, value in attributes.items()}
    typed = {name: TYPE_OF[value["value"]["type"]] for name, value in attributes.items() if _typed(value)}
    _check_types(metadata, typed, schema, context or {})
    return Sidecar(metadata, _records(document.get("documentStructureConfiguration")), typed)


def _check_types(
    metadata: dict[str, Any], typed: dict[str, FieldType], schema: MetadataSchema, context: MetadataSchema
) -> None:
    problems = metadata_problems(metadata, {**context, **schema})
    if not problems:
        return
    where, message = problems[0]
    name = where.removeprefix("metadata.").split("[")[0]
    if name in schema:
        raise DocumentRejectedError(
            f"has a sidecar value that contradicts the declared type: {where} {message} (fix the value, or "
            "change the key's type in RETRIEVAL_METADATA_FIELDS and run `retrieval rebuild`)"
        )
    change = _declaration({name: typed[name]}) if name in typed else "the key's type"
    raise DocumentRejectedError(
        f"has a sidecar value that contradicts the type this context's typed sidecars declared: {where} "
        f"{message.replace('(declared', '(typed')} (fix the value, or add {change} to "
        "RETRIEVAL_METADATA_FIELDS and run `retrieval rebuild`)"
    )


TYPE_OF = {
    "NUMBER": FieldType.NUMBER,
    "BOOLEAN": FieldType.BOOLEAN,
    "STRING": FieldType.KEYWORD,
    "STRING_LIST": FieldType.KEYWORD,
}


def _typed(value: Any) -> bool:
    return isinstance(value, dict) and value["value"]["type"] in TYPE_OF


def _name(name: str) -> str:
    if not METADATA_NAME_PATTERN.fullmatch(name):
        raise DocumentRejectedError(
            f"has a sidecar attribute {name!r}: names are 1-64 letters, digits, '_' or '-'"
        )
    return name


def _value(name: str, value: Any) -> Any:
    """A plain value as it is; a typed one unwrapped (its type checked against its member)."""
    if isinstance(value, dict):
        typed = value.get("value")
        if not isinstance(typed, dict) or typed.get("type") not in TYPED_VALUES:
            raise DocumentRejectedError(
                f"has a sidecar attribute {name!r} whose value is neither plain nor "
                f"{{'value': {{'type': {' | '.join(TYPED_VALUES)}, ...}}}}"
            )
        member = TYPED_VALUES[typed["type"]]
        if member not in typed:
            raise DocumentRejectedError(
                f"has a sidecar attribute {name!r} of type {typed['type']} without {member}"
            )
        value = typed[member]
        if not _fits(typed["type"], value):
            raise DocumentRejectedError(
                f"has a sidecar attribute {name!r} whose {member} is not a {typed['type']}"
            )
        return value
    if isinstance(value, str | bool) or _finite_number(value):
        return value
    if isinstance(value, int | float):
        raise DocumentRejectedError(
            f"has a sidecar attribute {name!r} whose number is not a finite 64-bit float (numbers are "
            "indexed as doubles: at most about 1.8e308)"
        )
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise DocumentRejectedError(
        f"has a sidecar attribute {name!r} that is not a string, number, boolean or list of strings"
    )


def _finite_number(value: Any) -> bool:
    """A number a double holds: a 4,000-digit integer is none (``math.isfinite`` raised
    ``OverflowError`` on it, and the file got no status at all)."""
    if not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _fits(kind: str, value: Any) -> bool:
    match kind:
        case "STRING":
            return isinstance(value, str)
        case "NUMBER":
            return not isinstance(value, bool) and _finite_number(value)
        case "BOOLEAN":
            return isinstance(value, bool)
        case _:
            return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _records(config: Any) -> RecordStructure | None:
    if config is None:
        return None
    try:
        assert config["type"] == "RECORD_BASED_STRUCTURE_METADATA"
        record = config["recordBasedStructureMetadata"]
        content = tuple(str(f["fieldName"]) for f in record["contentFields"])
        spec = record.get("metadataFieldsSpecification") or {}
        include = tuple(str(f["fieldName"]) for f in spec.get("fieldsToInclude") or [])
        exclude = tuple(str(f["fieldName"]) for f in spec.get("fieldsToExclude") or [])
    except (AssertionError, KeyError, TypeError) as error:
        raise DocumentRejectedError(
            "has a sidecar whose documentStructureConfiguration is not Bedrock's "
            f"RECORD_BASED_STRUCTURE_METADATA form ({error!r})"
        ) from None
    if not content:
        raise DocumentRejectedError("has a sidecar whose record structure names no content field")
    return RecordStructure(content, include, exclude)
