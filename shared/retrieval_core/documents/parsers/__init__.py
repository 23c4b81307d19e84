"""One parser per format, each bytes -> ``ParsedDocument`` within ``DocumentLimits``; ``parse`` picks by
format and imports a parser (and its library) only when a file of its format arrives."""

from __future__ import annotations

from importlib import import_module

from ..errors import DocumentRejectedError
from ..formats import DocumentFormat
from ..limits import DocumentLimits
from ..parsed import ParsedDocument, first_line
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
    """The file's blocks; raises ``DocumentRejectedError`` with the reason it cannot be read. Whatever
    else a parser (or its library) raises on hostile bytes is that file's failure too, with a one-line
    reason: never a traceback through the ingest event that leaves the file ``pending``."""
    module = import_module(f"{__name__}.{_MODULES[fmt]}")
    try:
        parsed: ParsedDocument = module.parse(data, limits, records)
    except DocumentRejectedError:  # its own reason (a skip is one too)
        raise
    except Exception as error:  # RecursionError and MemoryError's kin included: the file, not the run
        raise DocumentRejectedError(
            f"could not be parsed as {fmt.value} (its parser stopped: {first_line(error)})"
        ) from None
    return parsed
