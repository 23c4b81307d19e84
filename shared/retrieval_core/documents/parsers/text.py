"""Plain text: paragraphs at blank lines, offsets in the file's text."""

from __future__ import annotations

from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument, paragraphs
from ..sidecar import RecordStructure
from .decoding import decoded_text


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    return ParsedDocument(paragraphs(text))
