"""One parser per format, each bytes -> ``ParsedDocument`` within ``DocumentLimits``; ``parse`` picks by
format and imports a parser (and its library) only when a file of its format arrives."""

from __future__ import annotations

from importlib import import_module

from ..formats import DocumentFormat
from ..limits import DocumentLimits
from ..parsed import ParsedDocument
from ..sidecar import RecordStructure

_MODULES = {
    DocumentFormat.TEXT: "text",
    DocumentFormat.MARKDOWN: "markdown",
    DocumentFormat.RESTRUCTUREDTEXT: "restructuredtext",
    DocumentFormat.ASCIIDOC: "asciidoc",
    DocumentFormat.HTML: "html",
    DocumentFormat.XML: "xml",
    DocumentFormat.PDF: "pdf",
    DocumentFormat.DOCX: "docx",
    DocumentFormat.CSV: "csv",
    DocumentFormat.XLSX: "xlsx",
}


def parse(
    fmt: DocumentFormat, data: bytes, limits: DocumentLimits, records: RecordStructure | None = None
) -> ParsedDocument:
    """The file's blocks; raises ``DocumentRejectedError`` with the reason it cannot be read."""
    module = import_module(f"{__name__}.{_MODULES[fmt]}")
    parsed: ParsedDocument = module.parse(data, limits, records)
    return parsed
