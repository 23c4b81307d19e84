"""Markdown: paragraphs under their heading path (ATX ``#`` headings; fenced code is never a heading),
offsets in the file's text."""

from __future__ import annotations

import re

from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument, paragraphs
from ..sidecar import RecordStructure
from .decoding import decoded_text

HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    blocks: list[Block] = []
    path: list[str] = []
    body_start, position, fenced = 0, 0, False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading:
            blocks += _offset(paragraphs(text[body_start:position], section=tuple(path)), body_start)
            level = len(heading.group(1))
            path = [*path[: level - 1], heading.group(2).strip()]
            body_start = position + len(line)
        position += len(line)
    blocks += _offset(paragraphs(text[body_start:], section=tuple(path)), body_start)
    return ParsedDocument(blocks)


def _offset(blocks: list[Block], by: int) -> list[Block]:
    return [Block(b.text, b.start + by, b.end + by, b.page, b.section) for b in blocks]
