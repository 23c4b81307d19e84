"""reStructuredText: paragraphs under their section path. A title is a line underlined (and maybe
overlined) by one punctuation character repeated at least as long as it; levels follow the order in
which the underline styles first appear, as docutils assigns them, and each section's anchor is the id
docutils gives it. Offsets are in the file's text."""

from __future__ import annotations

import re

from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text
from .sections import Heading, docutils_id, sectioned

ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    return ParsedDocument(sectioned(text, _headings(text)))


def _headings(text: str) -> list[Heading]:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    styles: list[tuple[str, bool]] = []
    headings: list[Heading] = []
    index = 1
    while index < len(lines):
        under, title = ADORNMENT.match(lines[index]), lines[index - 1].strip()
        titled = bool(title) and not ADORNMENT.match(lines[index - 1])
        if under and titled and len(lines[index].strip()) >= len(title):
            over = index >= 2 and lines[index - 2].strip() == lines[index].strip()
            style = (under.group(1), over)
            if style not in styles:
                styles.append(style)
            first = index - 2 if over else index - 1
            level = styles.index(style) + 1
            headings.append(Heading(starts[first], starts[index + 1], level, title, docutils_id(title)))
            index += 2
            continue
        index += 1
    return headings
