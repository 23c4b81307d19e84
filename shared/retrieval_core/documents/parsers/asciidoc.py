"""AsciiDoc: paragraphs under their section path. A section title is a line of ``=`` (or ``#``) marks
and a space, its level their count (the document title ``= T`` is level 1); listing and literal blocks
(``----``, ``....``) are never titles. Offsets are in the file's text."""

from __future__ import annotations

import re

from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text
from .sections import Heading, sectioned

TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(.+?)[ \t]*$")
DELIMITER = re.compile(r"^(-{4,}|\.{4,}|`{3})\s*$")


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    return ParsedDocument(sectioned(text, _headings(text)))


def _headings(text: str) -> list[Heading]:
    headings: list[Heading] = []
    position, delimited = 0, False
    for line in text.splitlines(keepends=True):
        if DELIMITER.match(line):
            delimited = not delimited
        title = None if delimited else TITLE.match(line.rstrip("\n"))
        if title:
            headings.append(Heading(position, position + len(line), len(title.group(1)), title.group(2)))
        position += len(line)
    return headings
