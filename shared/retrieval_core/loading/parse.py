"""Reading JSON Lines into validated items and deletes. Every problem names its line and field.

A line is an item (optionally ``"op": "upsert"``) or a delete, ``{"op": "delete", "id": "acme:p-0042"}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import ValidationError

from ..context import CONTEXT_ID_PATTERN, context_of
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


@dataclass(frozen=True, slots=True)
class DeleteLine:
    """Remove the item ``item_id`` of ``context_id`` (deleting what is not there is not an error)."""

    line: int
    context_id: str
    item_id: str


OP_FIELD = "op"
UPSERT, DELETE = "upsert", "delete"


def parse_lines(
    lines: Iterable[str | bytes],
    *,
    context_id: str | None = None,
    first_line: int = 1,
    metadata: MetadataSchema | None = None,
) -> Iterator[ParsedLine | DeleteLine | LineError]:
    """Yield a ``ParsedLine``, ``DeleteLine`` or ``LineError`` per non-blank line, numbered from
    ``first_line`` (1 for a whole file; a later part of a file passes its own first line number).
    Lines may be ``bytes`` as read from an object (UTF-8; a line that is not is rejected).

    With ``context_id``, a line without one is placed in that context, and a line naming another
    context is rejected. A metadata value that contradicts its declared type (``metadata``) is an error
    of its line, never a silently unsearchable field.
    """
    for number, raw in enumerate(lines, start=first_line):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            yield LineError(number, "(line)", f"not valid JSON: {error.msg} at column {error.colno}")
            continue
        except UnicodeDecodeError:
            yield LineError(number, "(line)", "not valid UTF-8")
            continue
        if not isinstance(record, dict):
            yield LineError(number, "(line)", "must be a JSON object")
            continue
        if context_id is not None:
            record.setdefault("context_id", context_id)
            if record["context_id"] != context_id:
                yield LineError(number, "context_id", f"must be '{context_id}', the context of this load")
                continue
        op = record.pop(OP_FIELD, UPSERT)
        if op == DELETE:
            yield _delete(number, record)
            continue
        if op != UPSERT:
            yield LineError(number, OP_FIELD, f"must be '{UPSERT}' or '{DELETE}'")
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


def _delete(number: int, record: dict[str, object]) -> DeleteLine | LineError:
    """A delete names only its id (and optionally its context, which must be the id's prefix)."""
    item_id = record.get("id")
    extra = sorted(set(record) - {"id", "context_id"})
    if extra:
        return LineError(number, extra[0], "a delete line holds only 'op', 'id' and 'context_id'")
    if not isinstance(item_id, str) or context_of(item_id) is None:
        return LineError(number, "id", "must be an id with its context prefix, like 'acme:p-0042'")
    owner = context_of(item_id)
    stated = record.get("context_id", owner)
    if stated != owner or not isinstance(owner, str) or not CONTEXT_ID_PATTERN.match(owner):
        return LineError(number, "id", f"must start with '{stated}:' (deletes may not cross contexts)")
    return DeleteLine(number, owner, item_id)
