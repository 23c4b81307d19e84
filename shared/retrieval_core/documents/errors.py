"""Errors of document ingestion: a file that cannot become chunks fails alone, with a reason."""

from __future__ import annotations

from ..errors import InvalidRequestError


class DocumentRejectedError(InvalidRequestError):
    """This file (or its sidecar) cannot be indexed; ``message`` is the reason its status records."""

    code = "document_rejected"


class DocumentSkippedError(DocumentRejectedError):
    """This file is readable but holds nothing to index (only navigation: a table of contents, an index
    of links): it is ``skipped`` with ``message`` as the reason, not ``failed``."""

    code = "document_skipped"


class ChunkingConfigError(InvalidRequestError):
    """A chunking configuration the deployment's embedder cannot honour (a chunk past its window)."""

    code = "chunking_invalid"
