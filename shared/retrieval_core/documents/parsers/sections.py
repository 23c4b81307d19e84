"""Text under its heading path, for the lightweight markups whose headings are lines (reStructuredText,
AsciiDoc): the parser finds the headings, this cuts the paragraphs between them with their offsets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..parsed import Block, paragraphs


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    """Where the heading's lines begin in the text."""
    end: int
    """Where the text after them begins."""
    level: int
    """1 for the top level."""
    title: str


def sectioned(text: str, headings: Iterable[Heading]) -> list[Block]:
    blocks: list[Block] = []
    path: list[str] = []
    body_start = 0
    for heading in headings:
        blocks += _offset(paragraphs(text[body_start : heading.start], section=tuple(path)), body_start)
        path = [*path[: heading.level - 1], heading.title]
        body_start = heading.end
    blocks += _offset(paragraphs(text[body_start:], section=tuple(path)), body_start)
    return blocks


def _offset(blocks: list[Block], by: int) -> list[Block]:
    return [Block(b.text, b.start + by, b.end + by, b.page, b.section) for b in blocks]
