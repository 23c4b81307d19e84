"""CSV: one item per row. With the sidecar's record structure, a row's text is its content fields
(``name: value`` lines) and its metadata the chosen other fields; without one, every column is content.
The first row names the columns."""

from __future__ import annotations

import csv
import io

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    budget = Budget(limits)
    budget.spend(text)
    csv.field_size_limit(min(limits.characters, 2**31 - 1))
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        columns = _bounded(next(reader, []), limits)
        _check_columns(columns, records)
        content = list(records.content_fields) if records else columns
        parsed = ParsedDocument(records=True)
        cells = len(columns)
        for number, cells_of_row in enumerate(reader, start=1):
            if number > limits.rows:
                raise DocumentRejectedError(f"has more than {limits.rows:,} rows (rows)")
            cells += len(_bounded(cells_of_row, limits))
            if cells > limits.cells:
                raise DocumentRejectedError(f"has more than {limits.cells:,} cells (cells)")
            budget.check()
            row = dict(zip(columns, cells_of_row, strict=False))
            body = "\n".join(f"{name}: {row.get(name) or ''}" for name in content if row.get(name))
            if not body:
                continue
            metadata = {name: row[name] for name in _metadata_fields(columns, records) if row.get(name)}
            # A row is cited by its number (1-based, the header not counted); offsets are within its text.
            parsed.blocks.append(Block(body, 0, len(body), None, (f"row {number}",), metadata))
    except csv.Error as error:
        raise DocumentRejectedError(f"is not a readable CSV ({error})") from None
    return parsed


def _bounded(row: list[str], limits: DocumentLimits) -> list[str]:
    """A row (or the header) within the column bound: checked as soon as the row is split, before any of
    its cells becomes text (a one-row file of 1,000,000 columns fails here, at once)."""
    if len(row) > limits.columns:
        raise DocumentRejectedError(
            f"has a row of {len(row):,} columns, more than {limits.columns:,} (columns)"
        )
    return row


def _check_columns(columns: list[str], records: RecordStructure | None) -> None:
    if not columns:
        raise DocumentRejectedError("is a CSV without a header row")
    if records:
        missing = [name for name in (*records.content_fields, *records.include) if name not in columns]
        if missing:
            raise DocumentRejectedError(f"is a CSV without the columns its sidecar names: {missing}")


def _metadata_fields(columns: list[str], records: RecordStructure | None) -> list[str]:
    if records is None:
        return []
    chosen = list(records.include) or [c for c in columns if c not in records.content_fields]
    return [c for c in chosen if c not in records.exclude]
