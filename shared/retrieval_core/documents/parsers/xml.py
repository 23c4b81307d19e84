"""XML read as the text it holds: each element's own text and tail, in document order, one block per
element that holds any. A file declaring a DTD or entities is refused (no entity expansion), as DOCX is.
Offsets are in the extracted text."""

from __future__ import annotations

from xml.etree import ElementTree

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument
from ..sidecar import RecordStructure


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise DocumentRejectedError("is XML that declares a DTD or entities (refused: entity expansion)")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise DocumentRejectedError(f"is not well-formed XML ({error})") from None
    budget = Budget(limits)
    blocks: list[Block] = []
    length = 0
    for element in root.iter():
        for piece in (element.text, element.tail):
            text = " ".join((piece or "").split())
            if text:
                budget.spend(text)
                blocks.append(Block(text, length, length + len(text)))
                length += len(text) + 2
    return ParsedDocument(blocks)
