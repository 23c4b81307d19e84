"""Errors of document ingestion: a file that cannot become chunks fails alone, with a reason."""

from __future__ import annotations

from ..errors import InvalidRequestError


class DocumentRejectedError(InvalidRequestError):
    """This file (or its sidecar) cannot be indexed; ``message`` is the reason its status records."""

    code = "document_rejected"


class ChunkingConfigError(InvalidRequestError):
    """A chunking configuration the deployment's embedder cannot honour (a chunk past its window)."""

    code = "chunking_invalid"
