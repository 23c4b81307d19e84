"""A question read whole: the entities it names, its time cue, the kinds it hints at and the type of
entity it asks for."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..ports import NamedEntity
from .answer_types import AnswerType, answer_type
from .kinds import KindHint, kind_hints
from .linker import Link, link
from .temporal import TimeCue, parse_time


@dataclass(frozen=True, slots=True)
class Reading:
    links: list[Link] = field(default_factory=list)
    time: TimeCue | None = None
    kinds: list[KindHint] = field(default_factory=list)
    answer: AnswerType | None = None


def read(
    question: str, dictionary: Iterable[NamedEntity], now: datetime, types: Collection[str] | None = None
) -> Reading:
    """What ``question`` names, against the caller's own ``dictionary``, with relative time read at
    ``now``. A span read as a time cue is not also read as a name ("March" the month, not a person).
    ``types``: the entity types a question can ask for (default: those of ``dictionary``'s entries)."""
    entries = list(dictionary)
    time = parse_time(question, now)
    links = [found for found in link(question, entries) if time is None or not found.span.overlaps(time.span)]
    answer = answer_type(question, {entry.type for entry in entries} if types is None else set(types))
    if answer is not None and any(found.span.overlaps(answer.span) for found in links):
        answer = None  # "Which Payments ..." names the entity; it does not ask for a type
    return Reading(links, time, kind_hints(question), answer)
