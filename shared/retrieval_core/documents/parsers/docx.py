"""Word (.docx) read as what it is, a zip of XML, with the standard library: no lxml, and every bound
checked before a byte is inflated (members' declared sizes, their compression ratio, the total), then
again while reading. Headings (``Heading N``/``Title`` styles, outline levels) make the section path, a
stack (a heading closes the open sections of its level or deeper), each with its anchor: the heading's
bookmark (Word's ``_Toc...`` ones, which a table of contents links to), if it has one;
explicit page breaks (``w:br w:type="page"``, ``pageBreakBefore``) number the pages, when the file
marks any."""

from __future__ import annotations

import zipfile
from xml.etree import ElementTree

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument
from ..sidecar import RecordStructure
from .archive import checked_zip
from .sections import Heading

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
BODY = "word/document.xml"
UNNAMED_BOOKMARKS = ("_GoBack",)
"""Word's bookmark of the last edit, no section's."""


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    xml = _document_xml(data, limits)
    if b"<!DOCTYPE" in xml or b"<!ENTITY" in xml:
        raise DocumentRejectedError("is a DOCX whose XML declares entities (refused: entity expansion)")
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as error:
        raise DocumentRejectedError(f"is a DOCX with malformed XML ({error})") from None
    body = root.find(f"{W}body")
    if body is None:
        raise DocumentRejectedError("is a DOCX without a document body")
    paragraphs = [(_style(p), *_text_and_breaks(p), p) for p in body.iter(f"{W}p")]
    marks_pages = any(breaks or before for (_, before), _, breaks, _ in paragraphs)
    budget = Budget(limits)
    parsed = ParsedDocument()
    page, offset, stack = 1, 0, list[Heading]()
    for (level, before), text, breaks, paragraph in paragraphs:
        if before and offset:
            page, offset = page + 1, 0
        budget.spend(text)
        if level is not None:
            if text.strip():
                while stack and stack[-1].level >= level:
                    stack.pop()
                stack.append(Heading(0, 0, level, text.strip(), _bookmark(paragraph)))
        elif text.strip():
            stripped = text.strip()
            start = offset + text.index(stripped[0])
            section = tuple(heading.title for heading in stack)
            anchor = stack[-1].anchor if stack else None
            page_number = page if marks_pages else None
            parsed.blocks.append(
                Block(stripped, start, start + len(stripped), page_number, section, None, anchor)
            )
            offset += len(text) + 2
        if breaks:
            page, offset = page + breaks, 0
    parsed.pages = page if marks_pages else 0
    return parsed


def _document_xml(data: bytes, limits: DocumentLimits) -> bytes:
    archive = checked_zip(data, limits, "a DOCX")
    try:
        info = archive.getinfo(BODY)
    except KeyError:
        raise DocumentRejectedError(f"is not a DOCX (no {BODY})") from None
    try:
        with archive.open(info) as stream:
            xml = stream.read(limits.decompressed_bytes + 1)  # the declared size may lie
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
        raise DocumentRejectedError(f"is a damaged DOCX ({error})") from None
    if len(xml) > limits.decompressed_bytes:
        raise DocumentRejectedError(f"inflates past {limits.decompressed_bytes:,} bytes (a zip bomb?)")
    return xml


def _style(paragraph: ElementTree.Element) -> tuple[int | None, bool]:
    """The paragraph's heading level (None: body text) and whether it starts a new page."""
    properties = paragraph.find(f"{W}pPr")
    if properties is None:
        return None, False
    before = properties.find(f"{W}pageBreakBefore") is not None
    outline = properties.find(f"{W}outlineLvl")
    if outline is not None:
        return int(outline.get(f"{W}val", "0")) + 1, before
    style = properties.find(f"{W}pStyle")
    name = (style.get(f"{W}val", "") if style is not None else "").replace(" ", "").lower()
    if name == "title":
        return 1, before
    if name.startswith("heading") and name[7:].isdigit():
        return int(name[7:]), before
    return None, before


def _bookmark(paragraph: ElementTree.Element) -> str | None:
    names = (mark.get(f"{W}name") for mark in paragraph.iter(f"{W}bookmarkStart"))
    return next((name for name in names if name and name not in UNNAMED_BOOKMARKS), None)


def _text_and_breaks(paragraph: ElementTree.Element) -> tuple[str, int]:
    """The paragraph's text and the page breaks inside it (counted after it)."""
    parts: list[str] = []
    breaks = 0
    for node in paragraph.iter():
        if node.tag == f"{W}t":
            parts.append(node.text or "")
        elif node.tag == f"{W}tab":
            parts.append("\t")
        elif node.tag == f"{W}br":
            if node.get(f"{W}type") == "page":
                breaks += 1
            else:
                parts.append("\n")
    return "".join(parts), breaks
