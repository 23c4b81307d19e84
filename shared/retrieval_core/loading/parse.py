"""Reading JSON Lines into validated items. Every problem names its line and field."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import ValidationError

from ..models.item import Item
from ..models.metadata import MetadataSchema, metadata_problems


@dataclass(frozen=True, slots=True)
class LineError:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class ParsedLine:
    line: int
    item: Item


def parse_lines(
    lines: Iterable[str], *, context_id: str | None = None, metadata: MetadataSchema | None = None
) -> Iterator[ParsedLine | LineError]:
    """Yield a ``ParsedLine`` or a ``LineError`` per non-blank line (1-based line numbers).

    With ``context_id``, a line without one is placed in that context, and a line naming another
    context is rejected. A metadata value that contradicts its declared type (``metadata``) is an error
    of its line, never a silently unsearchable field.
    """
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            yield LineError(number, "(line)", f"not valid JSON: {error.msg} at column {error.colno}")
            continue
        if not isinstance(record, dict):
            yield LineError(number, "(line)", "must be a JSON object")
            continue
        if context_id is not None:
            record.setdefault("context_id", context_id)
            if record["context_id"] != context_id:
                yield LineError(number, "context_id", f"must be '{context_id}' (--context-id)")
                continue
        try:
            item = Item.model_validate(record)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "(item)"
            yield LineError(number, field, first["msg"])
            continue
        problems = metadata_problems(item.metadata, metadata or {})
        if problems:
            yield LineError(number, *problems[0])
            continue
        yield ParsedLine(number, item)
