"""AsciiDoc: paragraphs under their section path. A section title is a line of ``=`` (or ``#``) marks
and a space, its level their count (the document title ``= T`` is level 1); listing and literal blocks
(``----``, ``....``) are never titles. A section's anchor is the id given on the line before its title
(``[[id]]``, ``[#id]``), else the one AsciiDoc makes (``_`` and the title's words). Offsets are in the
file's text."""

from __future__ import annotations

import re

from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text
from .sections import Heading, asciidoc_id, sectioned

TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(.+?)[ \t]*$")
BLOCK_ID = re.compile(r"^\[(?:\[([\w\-.:]+)(?:,[^\]]*)?\]|#([\w\-.:]+)[^\]]*)\]\s*$")
"""An id given on the line before a title: ``[[install]]`` or ``[#install]``."""
DELIMITER = re.compile(r"^(-{4,}|\.{4,}|`{3})\s*$")


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    return ParsedDocument(sectioned(text, _headings(text)))


def _headings(text: str) -> list[Heading]:
    headings: list[Heading] = []
    position, delimited, given = 0, False, None
    for line in text.splitlines(keepends=True):
        if DELIMITER.match(line):
            delimited = not delimited
        title = None if delimited else TITLE.match(line.rstrip("\r\n"))
        if title:
            start = given[0] if given else position  # the id line belongs to the title, not the text
            anchor = given[1] if given else asciidoc_id(title.group(2))
            headings.append(Heading(start, position + len(line), len(title.group(1)), title.group(2), anchor))
        block_id = BLOCK_ID.match(line.rstrip("\r\n"))
        given = (position, block_id.group(1) or block_id.group(2)) if block_id else None
        position += len(line)
    return headings
