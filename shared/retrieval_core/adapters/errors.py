"""Errors the adapters raise on their own (backend failures become ``BackendUnavailableError``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import IncompleteBatchError, InvalidRequestError, RetrievalError

if TYPE_CHECKING:
    from .row_ref import RowRef


class UnprocessedWritesError(IncompleteBatchError):
    """Some writes were still unprocessed after every retry round."""

    def __init__(self, refs: list[RowRef]) -> None:
        super().__init__(f"{len(refs)} writes left unprocessed")
        self.refs = refs


class UnprocessedReadsError(IncompleteBatchError):
    """Some keys were still unprocessed after every retry round of a batched read."""

    def __init__(self, keys_left: int) -> None:
        super().__init__(f"{keys_left} reads left unprocessed")
        self.keys_left = keys_left


class IndexDimensionMismatchError(RetrievalError):
    """The index was built for vectors of another dimension than the configured embedder produces."""

    code = "index_dimension_mismatch"


class IndexMetadataMismatchError(RetrievalError):
    """The index types a declared metadata key differently from the declaration (or predates typing)."""

    code = "index_metadata_mismatch"


class BackendRefusedError(InvalidRequestError):
    """OpenSearch refused the request itself (HTTP 400 or 413): sending it again cannot help, so it is
    a client error, never a 503 with ``Retry-After``. The message names nothing internal."""

    def __init__(self) -> None:
        super().__init__("The search backend refused this request as given; change the request.")


class BackendMisconfiguredError(RetrievalError):
    """OpenSearch answered another 4xx (403 to our role, 404 for a missing index): a deployment fault,
    a 500 for callers and an alarm for operators, not an outage to retry."""
