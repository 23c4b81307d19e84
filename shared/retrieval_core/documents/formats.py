"""Every object's fate, by its name alone: a document of a format we parse, its sidecar, JSON Lines
(``.jsonl``/``.ndjson``, gzip too), or skipped with the reason. Nothing is parsed by a fallback: a
``.rst`` is never read as JSON Lines, a ``.png`` never as text (Bedrock skips such files and lists
them; so do we)."""

from __future__ import annotations

from enum import StrEnum

SIDECAR_SUFFIX = ".metadata.json"


class DocumentFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    RESTRUCTUREDTEXT = "restructuredtext"
    ASCIIDOC = "asciidoc"
    HTML = "html"
    XML = "xml"
    PDF = "pdf"
    DOCX = "docx"
    CSV = "csv"
    XLSX = "xlsx"


SUFFIXES = {
    ".txt": DocumentFormat.TEXT,
    ".text": DocumentFormat.TEXT,
    # JSON kept beside docs (configs, API samples) is read as the text it is, not as items.
    ".json": DocumentFormat.TEXT,
    ".md": DocumentFormat.MARKDOWN,
    ".markdown": DocumentFormat.MARKDOWN,
    ".rst": DocumentFormat.RESTRUCTUREDTEXT,
    ".adoc": DocumentFormat.ASCIIDOC,
    ".asciidoc": DocumentFormat.ASCIIDOC,
    ".html": DocumentFormat.HTML,
    ".htm": DocumentFormat.HTML,
    ".xhtml": DocumentFormat.HTML,
    ".xml": DocumentFormat.XML,
    ".pdf": DocumentFormat.PDF,
    ".docx": DocumentFormat.DOCX,
    ".csv": DocumentFormat.CSV,
    ".xlsx": DocumentFormat.XLSX,
}
LINES_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")


def suffix_of(key: str) -> str:
    """``contexts/a/Report.PDF`` -> ``.pdf``; ``''`` for a name without one (``Makefile``, ``.env``)."""
    name = key.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def format_of(key: str) -> DocumentFormat | None:
    """The document format a key names by its suffix (case-insensitive); None for JSON Lines, sidecars
    and anything else."""
    if is_sidecar(key):
        return None
    return SUFFIXES.get(suffix_of(key))


def is_lines(key: str) -> bool:
    """JSON Lines of items and deletes (the loader's format), by name only."""
    return key.lower().endswith(LINES_SUFFIXES)


def skip_reason(key: str) -> str | None:
    """Why a key that is no document, sidecar or JSON Lines is skipped; None when it is one of those."""
    if is_sidecar(key) or is_lines(key) or format_of(key) is not None:
        return None
    suffix = suffix_of(key)
    kind = f"its type ({suffix})" if suffix else "a name without a suffix"
    return f"{kind} is not one that is read (docs/DOCUMENTS.md, Files)"


def is_sidecar(key: str) -> bool:
    return key.lower().endswith(SIDECAR_SUFFIX)


def sidecar_of(key: str) -> str:
    """``contexts/acme/a.pdf`` -> ``contexts/acme/a.pdf.metadata.json`` (Bedrock's naming)."""
    return key + SIDECAR_SUFFIX


def document_of_sidecar(key: str) -> str:
    return key[: -len(SIDECAR_SUFFIX)]
