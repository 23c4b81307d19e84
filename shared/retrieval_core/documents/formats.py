"""Which objects are documents, which are their sidecars, and what each document format is."""

from __future__ import annotations

from enum import StrEnum

SIDECAR_SUFFIX = ".metadata.json"


class DocumentFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    PDF = "pdf"
    DOCX = "docx"
    CSV = "csv"


SUFFIXES = {
    ".txt": DocumentFormat.TEXT,
    ".md": DocumentFormat.MARKDOWN,
    ".markdown": DocumentFormat.MARKDOWN,
    ".html": DocumentFormat.HTML,
    ".htm": DocumentFormat.HTML,
    ".pdf": DocumentFormat.PDF,
    ".docx": DocumentFormat.DOCX,
    ".csv": DocumentFormat.CSV,
}


def format_of(key: str) -> DocumentFormat | None:
    """The document format a key names by its suffix (case-insensitive); None for JSON Lines, sidecars
    and anything else."""
    if is_sidecar(key):
        return None
    name = key.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return SUFFIXES.get(name[dot:]) if dot > 0 else None


def is_sidecar(key: str) -> bool:
    return key.lower().endswith(SIDECAR_SUFFIX)


def sidecar_of(key: str) -> str:
    """``contexts/acme/a.pdf`` -> ``contexts/acme/a.pdf.metadata.json`` (Bedrock's naming)."""
    return key + SIDECAR_SUFFIX


def document_of_sidecar(key: str) -> str:
    return key[: -len(SIDECAR_SUFFIX)]
