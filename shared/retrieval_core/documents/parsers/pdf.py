"""PDF with pypdf (BSD-3; the ingest function's own dependency, imported here only): one page at a time,
pages numbered from 1, offsets within the page's text; running headers and footers blanked
(``running_lines``). Encrypted, corrupt and truncated files are refused with the reason; pages,
characters and each page's operators are bounded, and the wall-time bound is checked *inside* a page's
extraction (every ``CHECK_EVERY`` operators: one page of 200,000 text operators once ran past 900 s)."""

from __future__ import annotations

import io
import logging

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument, first_line, paragraphs
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
        for number, page in enumerate(reader.pages, start=1):
            visitor = _OperatorBudget(number, limits.page_operators, budget)
            text = page.extract_text(visitor_operand_before=visitor) or ""
            texts.append(text.replace("\r\n", "\n"))
            budget.spend(texts[-1])
        # Running headers and footers blanked in place: offsets and page numbers stay as extracted.
        for number, text in enumerate(texts if keep_chrome else without_running_lines(texts), start=1):
            parsed.blocks += paragraphs(text, page=number)
    except DocumentRejectedError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as error:
        raise DocumentRejectedError(f"is not a readable PDF ({first_line(error)})") from None
    return parsed


CHECK_EVERY = 1_000
"""Operators between two looks at the clock (~60 ms of extraction)."""


class _OperatorBudget:
    """pypdf's per-operator visitor: counts a page's operators against ``page_operators`` and checks the
    wall-time bound every ``CHECK_EVERY`` of them; raising here ends the extraction."""

    def __init__(self, page: int, limit: int, budget: Budget) -> None:
        self._page, self._limit, self._budget = page, limit, budget
        self.count = 0

    def __call__(self, operator: object, operands: object, cm: object, tm: object) -> None:
        self.count += 1
        if self.count > self._limit:
            raise DocumentRejectedError(
                f"has a page ({self._page}) of more than {self._limit:,} content operators (page_operators)"
            )
        if self.count % CHECK_EVERY == 0:
            self._budget.check()
