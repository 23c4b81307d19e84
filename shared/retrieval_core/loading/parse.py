"""Reading JSON Lines into validated items and deletes. Every problem names its line and field.

A line is an item (optionally ``"op": "upsert"``) or a delete, ``{"op": "delete", "id": "acme:p-0042"}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..context import CONTEXT_ID_PATTERN, ID_SEPARATOR, context_of
from ..models.item import Item
from ..models.limits import LIMITS, text_problem
from ..models.metadata import MetadataSchema, metadata_problems
from .lines import OversizedLine


@dataclass(frozen=True, slots=True)
class LineError:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class Upsert:
    """Write ``item`` (replacing any item of its id). ``position`` numbers it in what is loaded: a
    file's line number, a document's chunk position; errors of the item are reported by it."""

    position: int
    item: Item


@dataclass(frozen=True, slots=True)
class Delete:
    """Remove the item ``id`` (its context is the id's prefix; deleting what is not there is not an
    error)."""

    id: str

    @property
    def context_id(self) -> str:
        return self.id.partition(ID_SEPARATOR)[0]


OP_FIELD = "op"
UPSERT, DELETE = "upsert", "delete"


def parse_lines(
    lines: Iterable[str | bytes | OversizedLine],
    *,
    context_id: str | None = None,
    first_line: int = 1,
    metadata: MetadataSchema | None = None,
) -> Iterator[Upsert | Delete | LineError]:
    """Yield an ``Upsert``, ``Delete`` or ``LineError`` per non-blank line, numbered from
    ``first_line`` (1 for a whole file; a later part of a file passes its own first line number).
    Lines may be ``bytes`` as read from an object (UTF-8; a line that is not is rejected), or an
    ``OversizedLine`` that ``lines.read_lines`` dropped unread.

    With ``context_id``, a line without one is placed in that context, and a line naming another
    context is rejected. A metadata value that contradicts its declared type (``metadata``) is an error
    of its line, never a silently unsearchable field.
    """
    for number, raw in enumerate(lines, start=first_line):
        if not isinstance(raw, OversizedLine) and not raw.strip():
            continue
        try:
            record = decode_line(raw)
        except LineProblem as problem:
            yield LineError(number, "(line)", str(problem))
            continue
        try:
            yield _parse_record(number, record, context_id, metadata)
        except Exception as error:  # a line the checks above missed still fails alone, never the load
            yield LineError(number, "(line)", f"could not be read ({type(error).__name__})")


def _parse_record(
    number: int, record: Any, context_id: str | None, metadata: MetadataSchema | None
) -> Upsert | Delete | LineError:
    if not isinstance(record, dict):
        return LineError(number, "(line)", "must be a JSON object")
    if context_id is not None:
        record.setdefault("context_id", context_id)
        if record["context_id"] != context_id:
            return LineError(number, "context_id", f"must be '{context_id}', the context of this load")
    op = record.pop(OP_FIELD, UPSERT)
    if op == DELETE:
        return _delete(number, record)
    if op != UPSERT:
        return LineError(number, OP_FIELD, f"must be '{UPSERT}' or '{DELETE}'")
    try:
        item = Item.model_validate(record)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(item)"
        return LineError(number, field, first["msg"])
    return checked(Upsert(number, item), metadata)


def checked(entry: Upsert | Delete, metadata: MetadataSchema | None) -> Upsert | Delete | LineError:
    """``entry``, or the error of its number when its item's metadata contradicts a declared type
    (``metadata``): such a field would be silently unsearchable, so the item is refused instead."""
    if isinstance(entry, Delete):
        return entry
    problems = metadata_problems(entry.item.metadata, metadata or {})
    return LineError(entry.position, *problems[0]) if problems else entry


class LineProblem(ValueError):
    """A line that cannot be decoded within the limits (``StorageLimits``)."""


def decode_line(raw: str | bytes | OversizedLine) -> Any:
    """The JSON value of one line, checked against the line limits before anything large is built:
    its size before decoding, integer digits before conversion, numbers finite, nesting depth."""
    if isinstance(raw, OversizedLine):
        raise LineProblem(f"is {raw.size} bytes; a line may hold at most {LIMITS.line_bytes}")
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > LIMITS.line_bytes:
        raise LineProblem(f"is {size} bytes; a line may hold at most {LIMITS.line_bytes}")
    try:
        # Floats are parsed by the decoder itself and checked afterwards (``_check_structure``): a
        # Python callback per float was a quarter of a load's time for lines with a 384-float vector.
        record = json.loads(raw, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise LineProblem(f"not valid JSON: {error.msg} at column {error.colno}") from None
    except UnicodeDecodeError:
        raise LineProblem("not valid UTF-8") from None
    except RecursionError:
        raise LineProblem(_too_deep()) from None
    _check_structure(record)
    return record


def _too_deep() -> str:
    return f"nests deeper than {LIMITS.json_depth} levels"


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > LIMITS.integer_digits:
        raise LineProblem(f"holds an integer of more than {LIMITS.integer_digits} digits")
    return int(text)


def _no_constant(text: str) -> float:
    raise LineProblem(f"holds {text}, which is not a JSON number")


def _check_structure(value: Any) -> None:
    """At most ``json_depth`` levels (walked without recursion), every number finite (a float past the
    double's range decodes as infinity) and every string one the product can hold (``models.limits``: a
    line's problem is reported by its line number, before its fields are read)."""
    stack = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, str):
            if (problem := text_problem(node)) is not None:
                raise LineProblem(f"holds a string that {problem}")
            continue
        if isinstance(node, float):
            _check_finite([node])
            continue
        children = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if isinstance(node, list):
            # A vector's floats in one C-level pass, not a stack entry each.
            _check_finite([child for child in children if type(child) is float])
            children = [child for child in children if type(child) is not float]
        if level > LIMITS.json_depth:
            raise LineProblem(_too_deep())
        if isinstance(node, dict):
            children = children + list(node)
        stack += [(child, level + 1) for child in children]


def _check_finite(numbers: list[float]) -> None:
    if not all(map(math.isfinite, numbers)):
        raise LineProblem("holds a number out of range (past a double's range, or not finite)")


def _delete(number: int, record: dict[str, object]) -> Delete | LineError:
    """A delete names only its id (and optionally its context, which must be the id's prefix)."""
    item_id = record.get("id")
    extra = sorted(set(record) - {"id", "context_id"})
    if extra:
        return LineError(number, extra[0], "a delete line holds only 'op', 'id' and 'context_id'")
    if not isinstance(item_id, str) or context_of(item_id) is None:
        return LineError(number, "id", "must be an id with its context prefix, like 'acme:p-0042'")
    owner = context_of(item_id)
    stated = record.get("context_id", owner)
    if stated != owner or not isinstance(owner, str) or not CONTEXT_ID_PATTERN.fullmatch(owner):
        return LineError(number, "id", f"must start with '{stated}:' (deletes may not cross contexts)")
    return Delete(item_id)
