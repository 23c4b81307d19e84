"""The hostile files of issue 67, item 5, generated at test time and small: a PDF page of many text
operators, an XLSX whose sheet claims row 10^20 (1.5 KB), an XLSX whose ``sharedStrings.xml`` declares
an entity DTD, and a sidecar holding a 4,000-digit number. Each is built by hand (the XLSX parts as
text, the PDF's objects and cross-reference table by offset), so its bytes are exactly the case."""

from __future__ import annotations

import io
import zipfile

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_PACKAGE = "http://schemas.openxmlformats.org/package/2006"
_OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def operator_pdf(operators: int, word: str = "w") -> bytes:
    """One page whose content stream shows ``word`` ``operators`` times, each its own ``Tj``."""
    body = b"BT /F1 12 Tf 72 720 Td " + f"({word}) Tj 1 0 Td ".encode() * operators + b"ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(body)).encode() + b" >>\nstream\n" + body + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def xlsx(rows_xml: str, *, dimension: str, shared_strings: str | None = None) -> bytes:
    """A one-sheet workbook (sheet ``S``) of ``rows_xml`` (``<row>`` elements), its ``<dimension>``
    claiming ``dimension``, and ``shared_strings`` as ``xl/sharedStrings.xml`` when given."""
    strings = shared_strings is not None
    types = (
        f'<Types xmlns="{_PACKAGE}/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{_TYPE}.sheet.main+xml"/>'
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{_TYPE}.worksheet+xml"/>'
        + (
            f'<Override PartName="/xl/sharedStrings.xml" ContentType="{_TYPE}.sharedStrings+xml"/>'
            if strings
            else ""
        )
        + "</Types>"
    )
    package = (
        f'<Relationships xmlns="{_PACKAGE}/relationships"><Relationship Id="rId1" '
        f'Type="{_OFFICE}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    workbook = (
        f'<workbook xmlns="{_MAIN}" xmlns:r="{_OFFICE}"><sheets>'
        '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'
    )
    workbook_links = (
        f'<Relationships xmlns="{_PACKAGE}/relationships">'
        f'<Relationship Id="rId1" Type="{_OFFICE}/worksheet" Target="worksheets/sheet1.xml"/>'
        + (
            f'<Relationship Id="rId2" Type="{_OFFICE}/sharedStrings" Target="sharedStrings.xml"/>'
            if strings
            else ""
        )
        + "</Relationships>"
    )
    sheet = (
        f'<worksheet xmlns="{_MAIN}"><dimension ref="{dimension}"/>'
        f"<sheetData>{rows_xml}</sheetData></worksheet>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", package)
        archive.writestr("xl/workbook.xml", workbook)
        archive.writestr("xl/_rels/workbook.xml.rels", workbook_links)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
        if shared_strings is not None:
            archive.writestr("xl/sharedStrings.xml", shared_strings)
    return out.getvalue()


def _inline(cell: str, text: str) -> str:
    return f'<c r="{cell}" t="inlineStr"><is><t>{text}</t></is></c>'


def far_row_xlsx(row: int = 10**20) -> bytes:
    """A header, one good row, and a row numbered ``row`` (openpyxl yields every empty row before it)."""
    rows = (
        f'<row r="1">{_inline("A1", "name")}</row><row r="2">{_inline("A2", "pier")}</row>'
        f'<row r="{row}">{_inline(f"A{row}", "far")}</row>'
    )
    return xlsx(rows, dimension=f"A1:A{row}")


def entity_dtd_xlsx() -> bytes:
    """Cells naming shared string 0, in a ``sharedStrings.xml`` that declares entities (a small
    billion-laughs)."""
    strings = (
        '<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "laugh"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        f'<sst xmlns="{_MAIN}" count="1" uniqueCount="1"><si><t>&b;</t></si></sst>'
    )
    rows = '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>0</v></c></row>'
    return xlsx(rows, dimension="A1:A2", shared_strings=strings)


def huge_number_sidecar(digits: int = 4_000) -> bytes:
    """A sidecar whose one attribute is a ``digits``-digit integer (no double holds it)."""
    return b'{"metadataAttributes": {"year": 1' + b"0" * (digits - 1) + b"}}"
