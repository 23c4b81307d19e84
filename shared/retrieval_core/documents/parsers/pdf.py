"""PDF with pypdf (BSD-3; the ingest function's own dependency, imported here only): one page at a time,
pages numbered from 1, offsets within the page's text; running headers and footers blanked
(``running_lines``). Encrypted, corrupt and truncated files are
refused with the reason; pages and characters are bounded."""

from __future__ import annotations

import io
import logging

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument, paragraphs
from ..sidecar import RecordStructure
from .running_lines import without_running_lines


def parse(
    data: bytes, limits: DocumentLimits, records: RecordStructure | None = None, *, keep_chrome: bool = False
) -> ParsedDocument:
    """``keep_chrome``: running headers and footers kept, as read before (measurement only)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    if not data.lstrip()[:5].startswith(b"%PDF-"):
        raise DocumentRejectedError("is not a PDF (no %PDF- header)")
    if b"%%EOF" not in data[-2048:]:
        raise DocumentRejectedError("is a truncated PDF (no %%EOF marker at its end)")
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged file is refused, not logged page by page
    budget = Budget(limits)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise DocumentRejectedError("is an encrypted PDF (a password protects it)")
        count = len(reader.pages)
        if count > limits.pages:
            raise DocumentRejectedError(f"has {count:,} pages, more than {limits.pages:,}")
        parsed = ParsedDocument(pages=count)
        texts = []
        for page in reader.pages:
            texts.append((page.extract_text() or "").replace("\r\n", "\n"))
            budget.spend(texts[-1])
        # Running headers and footers blanked in place: offsets and page numbers stay as extracted.
        for number, text in enumerate(texts if keep_chrome else without_running_lines(texts), start=1):
            parsed.blocks += paragraphs(text, page=number)
    except DocumentRejectedError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as error:
        raise DocumentRejectedError(f"is not a readable PDF ({type(error).__name__}: {error})") from None
    return parsed
