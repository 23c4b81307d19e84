"""The words every store, request and response shares: item kinds, statuses, how a timestamp is written,
and the empty defaults of their fields. Kept apart from the loadable ``Item`` model so that the request
path imports no more than these (building the item schema costs a cold start ~10 ms that only loading
needs).

The empty defaults (``empty_list``, ``empty_dict``) are Python functions rather than the ``list`` and
``dict`` types: pydantic reads a default factory's signature (does it take the validated data?), which
for a builtin type means parsing its text signature with ``tokenize``: about 3 ms of a cold start over
the models the retrieve function imports (1.3 ms of it compiling tokenize's pattern), where a function's
signature is read directly. The JSON Schema is the same: neither states a default.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, overload


class Kind(StrEnum):
    PROPOSITION = "proposition"
    DOCUMENT = "document"
    RECORD = "record"
    ARTIFACT = "artifact"
    TRACE = "trace"


class Status(StrEnum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    CONTRADICTED = "CONTRADICTED"
    STALE = "STALE"


@overload
def iso(moment: datetime) -> str: ...
@overload
def iso(moment: None) -> None: ...
def iso(moment: datetime | None) -> str | None:
    """Render a timestamp the way every store and response shows it: UTC, second precision, ``Z``."""
    if moment is None:
        return None
    utc = moment.astimezone(UTC)
    # Not strftime's %Y: glibc writes year 1 as "1", which no ISO-8601 reader (the index's) takes.
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}Z"


def empty_list() -> list[Any]:
    return []


def empty_dict() -> dict[Any, Any]:
    return {}
