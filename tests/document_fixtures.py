"""Generated document fixtures whose pages, sections and texts are known (no binary file is committed):
PDFs (fpdf2), DOCX (python-docx), and hostile files (encrypted, truncated, corrupt PDFs; a DOCX zip
bomb; binary text). Used by the unit and integration tests and by the bench."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence


def pdf(pages: Sequence[str], *, password: str | None = None) -> bytes:
    """A PDF with one page per text (page n holds ``pages[n - 1]``)."""
    from fpdf import FPDF

    document = FPDF()
    document.set_font("helvetica", size=11)
    if password is not None:
        document.set_encryption(owner_password=password, user_password=password)
    for text in pages:
        document.add_page()
        document.multi_cell(0, 6, text)
    return bytes(document.output())


def docx(parts: Sequence[tuple[str, str | int]]) -> bytes:
    """A DOCX from ``("heading", level_and_title)``-like parts: ``("h1", "Title")``, ``("p", "text")`` and
    ``("break", 0)`` (an explicit page break)."""
    import docx as python_docx

    document = python_docx.Document()
    for kind, value in parts:
        if kind == "break":
            document.add_page_break()
        elif kind.startswith("h"):
            document.add_heading(str(value), int(kind[1:]))
        else:
            document.add_paragraph(str(value))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def docx_bomb(inflated_bytes: int = 20 * 1024 * 1024) -> bytes:
    """A .docx-named zip whose document.xml inflates to ``inflated_bytes`` of spaces (a few hundred KB
    stored)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("word/document.xml", "w", force_zip64=True) as member,
    ):
        block = b" " * (1024 * 1024)
        for _ in range(inflated_bytes // len(block)):
            member.write(block)
    return buffer.getvalue()


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def corrupt_pdf() -> bytes:
    return b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ngarbage\n%%EOF\n"


BINARY_TEXT = bytes(range(256)) * 8
