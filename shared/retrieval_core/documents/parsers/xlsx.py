"""Excel (.xlsx) with openpyxl (MIT; the ingest function's own dependency, imported here only), read-only
and values only (a formula gives its cached result). Each sheet's first non-empty row names its columns;
every later row is one record, as a CSV row is: ``column: value`` lines, cited as ``<sheet> > row N``.

Before openpyxl reads anything, the zip's bounds are checked (``archive.checked_zip``) and no XML part
may declare a DTD or an entity (an XLSX never needs one; an entity DTD in ``sharedStrings.xml`` once
escaped as an ``IndexError`` and left the file ``pending``). A sheet may not claim a row past Excel's
last (``EXCEL_ROWS``: a 1,483-byte sheet claiming row 10^20 made openpyxl yield empty rows until the
process was killed), and every row, empty ones too, is checked against the wall-time bound. Whatever
openpyxl raises on a damaged file is a one-line reason, never its class name."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any
from xml.parsers import expat

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument, first_line
from ..sidecar import RecordStructure
from .archive import checked_zip

EXCEL_ROWS = 1_048_576
"""Excel's last row: a sheet claiming one past it is not a workbook Excel wrote."""
PROLOG_CHUNK = 16 * 1024


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    from openpyxl import load_workbook

    with checked_zip(data, limits, "an XLSX") as archive:
        _refuse_declarations(archive)
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises whatever its readers do on a damaged file
        raise DocumentRejectedError(f"is not a readable XLSX ({first_line(error)})") from None
    budget = Budget(limits)
    parsed = ParsedDocument(records=True)
    try:
        for sheet in workbook.worksheets:
            _check_claimed_rows(sheet.title, sheet.max_row)
            for block in _sheet_blocks(sheet.title, sheet.iter_rows(values_only=True), budget, records):
                if len(parsed.blocks) >= limits.rows:
                    raise DocumentRejectedError(f"has more than {limits.rows:,} rows")
                parsed.blocks.append(block)
    except DocumentRejectedError:
        raise
    except Exception as error:  # a cell or part openpyxl could not read while iterating
        raise DocumentRejectedError(f"is not a readable XLSX ({first_line(error)})") from None
    finally:
        workbook.close()
    return parsed


class _Declared(Exception):
    pass


class _RootReached(Exception):
    pass


def _refuse_declarations(archive: zipfile.ZipFile) -> None:
    """Refuse the file when any XML part declares a DTD or an entity: each part is parsed (expat, no
    external entity read) only until its root element opens, where any declaration must already be."""
    for member in archive.infolist():
        if not member.filename.lower().endswith((".xml", ".rels")):
            continue
        parser = expat.ParserCreate()

        def declared(*_: Any) -> None:
            raise _Declared

        def root(*_: Any) -> None:
            raise _RootReached

        parser.StartDoctypeDeclHandler = declared
        parser.EntityDeclHandler = declared
        parser.StartElementHandler = root
        try:
            with archive.open(member) as part:
                while chunk := part.read(PROLOG_CHUNK):
                    parser.Parse(chunk, False)
                parser.Parse(b"", True)
        except _Declared:
            raise DocumentRejectedError(
                f"has an XML part ({member.filename}) that declares a DTD or an entity (an XLSX never "
                "needs one: refused before it is read)"
            ) from None
        except (_RootReached, expat.ExpatError):  # malformed XML is openpyxl's to report
            continue
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise DocumentRejectedError(f"is not a readable XLSX ({first_line(error)})") from None


def _check_claimed_rows(title: str, claimed: int | None) -> None:
    if claimed is not None and claimed > EXCEL_ROWS:
        raise DocumentRejectedError(
            f"has a sheet ({title}) claiming row {claimed:,}, past Excel's last row {EXCEL_ROWS:,} (rows)"
        )


def _sheet_blocks(
    title: str, rows: Iterator[tuple[Any, ...]], budget: Budget, records: RecordStructure | None
) -> Iterator[Block]:
    columns: list[str] | None = None
    for number, row in enumerate(rows, start=1):
        _check_claimed_rows(title, number)  # openpyxl fills a gap before a far row with empty ones
        budget.check()
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
