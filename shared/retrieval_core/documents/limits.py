"""How much of a file the parsers will read: every bound a hostile file could push (size, decompressed
size, pages, characters, time). Bedrock's own limit is 50 MB a file; the rest keep one invocation's
memory and time bounded whatever the file claims."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DocumentLimits(BaseModel):
    model_config = ConfigDict(frozen=True)

    file_bytes: int = Field(default=50 * 1024 * 1024, description="A file's stored size (Bedrock's 50 MB).")
    sidecar_bytes: int = Field(default=10 * 1024, description="A sidecar's size (Bedrock's 10 KB).")
    decompressed_bytes: int = Field(
        default=200 * 1024 * 1024, description="What a DOCX's zip members may inflate to, all together."
    )
    compression_ratio: int = Field(default=100, description="A zip member inflating more is a bomb.")
    pages: int = Field(default=2000, description="Pages of a PDF.")
    characters: int = Field(default=20_000_000, description="Text extracted from one file.")
    rows: int = Field(default=100_000, description="Rows of a CSV (one item each).")
    seconds: float = Field(default=120.0, description="Parsing time of one file.")


DOCUMENT_LIMITS = DocumentLimits()
