"""Text under its heading path, for the markups whose headings are lines (Markdown, reStructuredText,
AsciiDoc): the parser finds the headings, this cuts the paragraphs between them with their offsets.
The path is a stack: a heading closes every open section of its level or deeper and opens its own
under what is left, so a file that starts at level 2, or skips a level, nests each heading under the
one actually above it. Each section keeps its anchor, the fragment its rendered page opens it at."""

from __future__ import annotations

import re
import unicodedata
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
    anchor: str | None = None


def sectioned(text: str, headings: Iterable[Heading]) -> list[Block]:
    blocks: list[Block] = []
    stack: list[Heading] = []
    body_start = 0
    for heading in headings:
        blocks += _under(text, body_start, heading.start, stack)
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        body_start = heading.end
    return blocks + _under(text, body_start, len(text), stack)


def _under(text: str, start: int, end: int, stack: list[Heading]) -> list[Block]:
    section = tuple(heading.title for heading in stack)
    anchor = stack[-1].anchor if stack else None
    return [
        Block(b.text, b.start + start, b.end + start, b.page, section, None, anchor)
        for b in paragraphs(text[start:end])
    ]


class GitHubSlugs:
    """Markdown's anchors as GitHub (and GitLab, MkDocs' ``toc`` slugify with unicode) write them: the
    title lowercased, punctuation dropped, spaces as hyphens; a repeated one gets ``-1``, ``-2``..."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, title: str) -> str:
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = self._seen.get(slug, 0)
        self._seen[slug] = count + 1
        return f"{slug}-{count}" if count else slug


def docutils_id(title: str) -> str | None:
    """reStructuredText's section id as docutils makes it: ASCII letters and digits, other runs as one
    hyphen, starting with a letter."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    identifier = re.sub(r"[^a-z0-9]+", "-", ascii_title)
    identifier = re.sub(r"^[^a-z]+", "", identifier).strip("-")
    return identifier or None


def asciidoc_id(title: str) -> str | None:
    """AsciiDoc's automatic section id: ``_`` and the title lowercased, other characters as ``_``."""
    words = re.sub(r"\W+", "_", title.strip().lower()).strip("_")
    return f"_{words}" if words else None
