"""What every string that enters the product must be, checked once at the door: valid Unicode (JSON's
``\\ud800`` escapes can spell lone surrogates, which no encoder, store or index takes), free of NUL (a C
string's end in more than one backend library) and at most a line's size. ``DoorModel`` checks every
string of its input, keys and values at any depth, before its fields are read, so a request or item model
that derives from it covers a field it adds without saying so; ``Text`` is the same check for one string
that arrives on its own (a header, a path parameter)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, model_validator
from pydantic_core import PydanticCustomError

from .limits import LIMITS

MAX_STRING_CHARS = LIMITS.line_bytes
"""No string is longer than the largest line the loader reads (each field has its own, smaller, bound)."""


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot enter the product, or None."""
    if len(value) > MAX_STRING_CHARS:
        return f"is longer than {MAX_STRING_CHARS} characters"
    if "\x00" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (not valid Unicode)"
    return None


_SCALARS = frozenset({int, float, bool, type(None)})


def first_problem(value: Any) -> tuple[str, str] | None:
    """The path (``filter.all_of[0].eq.value``) and problem of the first string in ``value`` (keys and
    values, at any depth) that cannot enter; None when all can. Walked without recursion."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, node = pending.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem is not None:
                return path or "(value)", problem
        elif isinstance(node, dict):
            for key, child in node.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and (problem := text_problem(key)) is not None:
                    return f"{path or '(value)'} key", problem
                pending.append((where, child))
        elif isinstance(node, list | tuple):
            # A number holds no string: a vector's components get no path spelled and no check each.
            pending.extend(
                (f"{path}[{n}]", child) for n, child in enumerate(node) if type(child) not in _SCALARS
            )
    return None


def _checked_text(value: str) -> str:
    problem = text_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Text = Annotated[str, AfterValidator(_checked_text)]


class DoorModel(BaseModel):
    """A model whose input's every string is checked (``first_problem``) before any field is read."""

    @model_validator(mode="before")
    @classmethod
    def _every_string_holdable(cls, data: Any) -> Any:
        found = first_problem(data)
        if found is not None:
            raise PydanticCustomError(
                "unholdable_string", "{path}: {problem}", {"path": found[0], "problem": found[1]}
            )
        return data
