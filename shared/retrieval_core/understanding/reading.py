"""A question read whole: the entities it names, its time cue and the kinds it hints at."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..ports import NamedEntity
from .kinds import KindHint, kind_hints
from .linker import Link, link
from .temporal import TimeCue, parse_time


@dataclass(frozen=True, slots=True)
class Reading:
    links: list[Link] = field(default_factory=list)
    time: TimeCue | None = None
    kinds: list[KindHint] = field(default_factory=list)


def read(question: str, dictionary: Iterable[NamedEntity], now: datetime) -> Reading:
    """What ``question`` names, against the caller's own ``dictionary``, with relative time read at
    ``now``. A span read as a time cue is not also read as a name ("March" the month, not a person)."""
    time = parse_time(question, now)
    links = [
        found for found in link(question, dictionary) if time is None or not found.span.overlaps(time.span)
    ]
    return Reading(links, time, kind_hints(question))
