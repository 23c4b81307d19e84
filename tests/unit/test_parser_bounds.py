"""Issue 67, item 5: every bound is enforced where the time goes, and whatever a parser raises is the
file's failure with a one-line reason that names the rule, never an exception's class name. The
hostile files are generated (``tests/bounded_files.py``); a bound that would take minutes to reach is
reached here with a lowered limit."""

from __future__ import annotations

import pytest
from retrieval_core.documents.errors import DocumentRejectedError
from retrieval_core.documents.formats import DocumentFormat
from retrieval_core.documents.limits import DOCUMENT_LIMITS, DocumentLimits
from retrieval_core.documents.parsed import Budget
from retrieval_core.documents.parsers import parse, pdf, xlsx
from retrieval_core.documents.sidecar import read_sidecar

from tests import bounded_files


def _reason(fmt: DocumentFormat, data: bytes, limits: DocumentLimits = DOCUMENT_LIMITS) -> str:
    with pytest.raises(DocumentRejectedError) as refused:
        parse(fmt, data, limits)
    reason = refused.value.message
    assert "\n" not in reason and "Error" not in reason, reason  # one line, no class name
    return reason


def test_a_sheet_claiming_row_ten_to_the_twentieth_fails_at_once() -> None:
    # openpyxl yielded empty rows towards row 10^20 until the process was killed.
    assert _reason(DocumentFormat.XLSX, bounded_files.far_row_xlsx()) == (
        "has a sheet (S) claiming row 100,000,000,000,000,000,000, past Excel's last row 1,048,576 (rows)"
    )


def test_a_far_row_no_dimension_claims_is_caught_row_by_row() -> None:
    # Without a <dimension> openpyxl learns the sheet's size as it reads: the rows are checked as they come.
    sheet_rows = iter([("name",), *[()] * 1_048_576, ("far",)])
    with pytest.raises(DocumentRejectedError, match="claiming row 1,048,577"):
        list(xlsx._sheet_blocks("S", sheet_rows, Budget(DOCUMENT_LIMITS), None))


def test_every_row_empty_ones_too_spends_the_wall_time_bound() -> None:
    spent = Budget(DocumentLimits(seconds=0))
    with pytest.raises(DocumentRejectedError, match=r"\(seconds\)"):
        list(xlsx._sheet_blocks("S", iter([(), (), ()]), spent, None))  # before: empty rows never checked


def test_an_entity_dtd_in_shared_strings_is_refused_before_openpyxl_reads_it() -> None:
    # It escaped as an IndexError ("could not be synced") and left the file pending.
    assert _reason(DocumentFormat.XLSX, bounded_files.entity_dtd_xlsx()) == (
        "has an XML part (xl/sharedStrings.xml) that declares a DTD or an entity (an XLSX never needs one: "
        "refused before it is read)"
    )


def test_a_page_past_its_operators_fails_inside_its_extraction() -> None:
    data = bounded_files.operator_pdf(5_000)
    assert len(parse(DocumentFormat.PDF, data, DOCUMENT_LIMITS).blocks) == 1
    lowered = DocumentLimits(page_operators=1_000)
    assert _reason(DocumentFormat.PDF, data, lowered) == (
        "has a page (1) of more than 1,000 content operators (page_operators)"
    )


def test_the_wall_time_bound_is_checked_every_thousand_operators_of_a_page() -> None:
    spent = Budget(DocumentLimits(seconds=0))  # its deadline has passed
    visitor = pdf._OperatorBudget(1, DOCUMENT_LIMITS.page_operators, spent)
    for _ in range(pdf.CHECK_EVERY - 1):
        visitor("Tj", [], None, None)
    with pytest.raises(DocumentRejectedError, match=r"\(seconds\)"):
        visitor("Tj", [], None, None)


def test_whatever_a_parser_raises_is_a_one_line_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> None:
        raise IndexError("list index out of range\n  deep inside the library")

    monkeypatch.setattr(xlsx, "parse", broken)
    assert _reason(DocumentFormat.XLSX, b"PK") == (
        "could not be parsed as xlsx (its parser stopped: list index out of range)"
    )


def test_a_sidecar_with_a_four_thousand_digit_number_fails_by_its_rule() -> None:
    # math.isfinite raised OverflowError: the file got no status at all.
    with pytest.raises(DocumentRejectedError) as refused:
        read_sidecar(bounded_files.huge_number_sidecar(), {}, DOCUMENT_LIMITS)
    assert refused.value.message == (
        "has a sidecar attribute 'year' whose number is not a finite 64-bit float (numbers are indexed as "
        "doubles: at most about 1.8e308)"
    )
    typed = b'{"metadataAttributes": {"year": {"value": {"type": "NUMBER", "numberValue": 1' + b"0" * 3_999
    with pytest.raises(DocumentRejectedError, match="numberValue is not a NUMBER"):
        read_sidecar(typed + b"}}}}", {}, DOCUMENT_LIMITS)
