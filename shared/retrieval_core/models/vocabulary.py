"""The words every store, request and response shares: item kinds, statuses and how a timestamp is
written. Kept apart from the loadable ``Item`` model so that the request path imports no more than these
(building the item schema costs a cold start ~10 ms that only loading needs)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import overload


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
