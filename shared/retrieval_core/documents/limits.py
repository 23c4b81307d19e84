"""How much of a file ingestion will take on: every bound a hostile file could push, from its bytes to
the index (size, decompressed size, pages, characters, CSV rows, columns and cells, JSON nesting,
chunks, characters per chunk, and one wall-time budget for parse, chunk, embed and index together).
Bedrock's own limit is 50 MB a file; the rest keep one invocation's memory and time bounded whatever the
file claims. A file past any of them is ``failed`` with the bound it passed (docs/DOCUMENTS.md lists
them all)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DocumentLimits(BaseModel):
    model_config = ConfigDict(frozen=True)

    file_bytes: int = Field(default=50 * 1024 * 1024, description="A file's stored size (Bedrock's 50 MB).")
    sidecar_bytes: int = Field(default=10 * 1024, description="A sidecar's size (Bedrock's 10 KB).")
    json_depth: int = Field(
        default=16,
        description="Nesting levels of a sidecar (Bedrock's forms need 6), counted before it is parsed.",
    )
    decompressed_bytes: int = Field(
        default=200 * 1024 * 1024, description="What a DOCX's zip members may inflate to, all together."
    )
    compression_ratio: int = Field(default=100, description="A zip member inflating more is a bomb.")
    pages: int = Field(default=2000, description="Pages of a PDF.")
    page_operators: int = Field(
        default=1_000_000,
        description="Content-stream operators of one PDF page, counted as its text is extracted (a dense "
        "page has tens of thousands; the wall-time bound is checked every 1,000 of them too).",
    )
    characters: int = Field(default=20_000_000, description="Text extracted from one file.")
    rows: int = Field(default=100_000, description="Rows of a CSV (one chunk each, so `chunks` binds first).")
    columns: int = Field(default=1_000, description="Columns of a CSV row (the header's included).")
    cells: int = Field(default=1_000_000, description="Cells of a CSV, all rows together.")
    chunks: int = Field(
        default=1_000,
        description="Chunks of one file, counted before any is embedded: each costs an embedding, and "
        "the local model takes 0.1-0.4 s a chunk on a 2-core machine.",
    )
    chunk_characters: int = Field(
        default=32_768,
        description="Characters of one chunk's text (strategy `none` makes a whole file one chunk).",
    )
    seconds: float = Field(
        default=300.0,
        description="Wall time of one file from its bytes to the index: parse, chunk, embed and index "
        "(the ingest function's Timeout is 900 s).",
    )


DOCUMENT_LIMITS = DocumentLimits()
