"""How item metadata gets types: a per-deployment declaration, checked when items load.

A declared key holds values of its type (or lists of them) and is indexed as that type, so filters
compare it as a number, a date, a boolean or an exact string. An undeclared key is indexed as an exact
string (numbers and booleans as their JSON text); nested objects are stored and returned, never indexed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from .calendar import in_calendar

METADATA_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


class FieldType(StrEnum):
    KEYWORD = "keyword"
    NUMBER = "number"
    DATE = "date"
    BOOLEAN = "boolean"


MetadataSchema = Mapping[str, FieldType]
"""Declared metadata keys and their types (``RETRIEVAL_METADATA_FIELDS``); undeclared keys are keywords."""


def parse_date(value: str) -> datetime | None:
    """An ISO-8601 timestamp with a zone whose UTC form lies within years 1-9999 (dates are stored and
    compared in UTC), or None."""
    try:
        moment = datetime.fromisoformat(value)
        return in_calendar(moment) if moment.tzinfo is not None else None
    except ValueError:
        return None


def value_problem(field_type: FieldType, value: Any) -> str | None:
    """Why ``value`` (one scalar) cannot be a value of ``field_type``; None when it can."""
    match field_type:
        case FieldType.KEYWORD:
            ok = isinstance(value, str)
        case FieldType.NUMBER:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        case FieldType.DATE:
            ok = isinstance(value, str) and parse_date(value) is not None
        case FieldType.BOOLEAN:
            ok = isinstance(value, bool)
    return None if ok else EXPECTED[field_type]


EXPECTED = {
    FieldType.KEYWORD: "must be a string",
    FieldType.NUMBER: "must be a finite number",
    FieldType.DATE: "must be an ISO-8601 timestamp with a zone, within years 1-9999 in UTC",
    FieldType.BOOLEAN: "must be true or false",
}


def metadata_problems(metadata: Mapping[str, Any], schema: MetadataSchema) -> list[tuple[str, str]]:
    """``(field, message)`` for every declared metadata value of the wrong type (lists: each element)."""
    problems = []
    for name, field_type in schema.items():
        if name not in metadata or metadata[name] is None:
            continue
        value = metadata[name]
        elements = value if isinstance(value, list) else [value]
        for position, element in enumerate(elements):
            problem = value_problem(field_type, element)
            if problem is not None:
                where = f"metadata.{name}" + (f"[{position}]" if isinstance(value, list) else "")
                problems.append((where, f"{problem} (declared {field_type})"))
    return problems
