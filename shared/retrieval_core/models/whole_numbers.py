"""Integers as JSON Schema counts them: ``3.0`` is the integer 3 (a number whose fraction is zero), so a
request the published schema calls valid is not refused for spelling a count with ``.0``. A bool is
still never a number, and ``3.5`` is still no integer."""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator


def _whole(value: Any) -> Any:
    # Any whole float, however far out: the field's own bounds then refuse it in JSON Schema's words
    # (or, for a count without a lower bound, it is clamped like the integer it spells).
    if type(value) is float and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(_whole)
"""Put it after a ``StrictInt``'s bounds (``Annotated[StrictInt, Field(le=...), WHOLE]``), so that the
bounds stay JSON Schema's ``maximum``/``exclusiveMinimum``."""
