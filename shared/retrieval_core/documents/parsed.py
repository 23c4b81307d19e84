"""What a parser makes of a file: blocks of text in reading order, each with where it sits (its page,
its heading path) and its character offsets in the file's extracted text."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .errors import DocumentRejectedError
from .limits import DocumentLimits


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph (or a page's text, or a row): ``start``/``end`` are offsets in the page's text when
    the file has pages, else in the whole file's text."""

    text: str
    start: int
    end: int
    page: int | None = None
    section: tuple[str, ...] = ()
    metadata: dict[str, Any] | None = None
    """A CSV row's metadata fields (``documentStructureConfiguration``); None for prose."""
    anchor: str | None = None
    """The section's anchor: its heading's id (or the nearest one above it) that a URL fragment opens."""


@dataclass
class ParsedDocument:
    blocks: list[Block] = field(default_factory=list)
    pages: int = 0
    records: bool = False
    """Each block is a record (a CSV row) and becomes its own chunk, never merged or split."""
    navigation: str | None = None
    """Why the file is only navigation (a table of contents, an index of links), with no block: it is
    ``skipped`` with this reason, not indexed and not failed."""


class Budget:
    """The character and time bounds of one parse, checked as text is produced."""

    def __init__(self, limits: DocumentLimits) -> None:
        self._limits = limits
        self._deadline = time.monotonic() + limits.seconds
        self.characters = 0

    def spend(self, text: str) -> None:
        self.characters += len(text)
        if self.characters > self._limits.characters:
            raise DocumentRejectedError(
                f"yields more than {self._limits.characters:,} characters of text (characters)"
            )
        self.check()

    def check(self) -> None:
        if time.monotonic() > self._deadline:
            raise DocumentRejectedError(f"took longer than {self._limits.seconds:g} s to parse (seconds)")


def first_line(error: BaseException, limit: int = 160) -> str:
    """What a library's error says, as one line of a status (its first line, cut to ``limit``); never
    its class name, which names our code, not the file's fault."""
    line = next((part.strip() for part in str(error).splitlines() if part.strip()), "")
    return (line[: limit - 3] + "...") if len(line) > limit else line or "its contents could not be read"


def paragraphs(text: str, *, page: int | None = None, section: tuple[str, ...] = ()) -> list[Block]:
    """``text`` cut at blank lines into blocks with their offsets (whitespace-only paragraphs dropped)."""
    blocks: list[Block] = []
    position = 0
    for piece in text.split("\n\n"):
        stripped = piece.strip()
        if stripped:
            start = position + piece.index(stripped[0])
            blocks.append(Block(stripped, start, start + len(stripped), page, section))
        position += len(piece) + 2
    return blocks
