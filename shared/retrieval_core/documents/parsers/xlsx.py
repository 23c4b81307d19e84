"""Excel (.xlsx) with openpyxl (MIT; the ingest function's own dependency, imported here only), read-only
and values only (a formula gives its cached result). Each sheet's first non-empty row names its columns;
every later row is one record, as a CSV row is: ``column: value`` lines, cited as ``<sheet> > row N``.
The zip's bounds are checked before openpyxl inflates anything."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument
from ..sidecar import RecordStructure
from .archive import checked_zip


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    from openpyxl import load_workbook

    checked_zip(data, limits, "an XLSX").close()
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises whatever its readers do on a damaged file
        raise DocumentRejectedError(f"is not a readable XLSX ({type(error).__name__}: {error})") from None
    budget = Budget(limits)
    parsed = ParsedDocument(records=True)
    try:
        for sheet in workbook.worksheets:
            for block in _sheet_blocks(sheet.title, sheet.iter_rows(values_only=True), budget, records):
                if len(parsed.blocks) >= limits.rows:
                    raise DocumentRejectedError(f"has more than {limits.rows:,} rows")
                parsed.blocks.append(block)
    finally:
        workbook.close()
    return parsed


def _sheet_blocks(
    title: str, rows: Iterator[tuple[Any, ...]], budget: Budget, records: RecordStructure | None
) -> Iterator[Block]:
    columns: list[str] | None = None
    for number, row in enumerate(rows, start=1):
        cells = ["" if value is None else str(value).strip() for value in row]
        if columns is None:
            if any(cells):
                columns = [name or f"column {i + 1}" for i, name in enumerate(cells)]
            continue
        named = dict(zip(columns, cells, strict=False))
        content = list(records.content_fields) if records else columns
        body = "\n".join(f"{name}: {named[name]}" for name in content if named.get(name))
        if not body:
            continue
        budget.spend(body)
        metadata = None
        if records is not None:
            chosen = list(records.include) or [c for c in columns if c not in records.content_fields]
            metadata = {c: named[c] for c in chosen if c not in records.exclude and named.get(c)}
        yield Block(body, 0, len(body), None, (title, f"row {number}"), metadata)
