"""A piece of the question and what it was read as: every inference names the span it came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``start:end`` of the question (``text`` is that slice, as the caller wrote it)."""

    start: int
    end: int
    text: str

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end
