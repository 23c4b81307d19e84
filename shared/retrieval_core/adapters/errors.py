"""Errors the adapters raise on their own (backend failures become ``BackendUnavailableError``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import RetrievalError

if TYPE_CHECKING:
    from .dynamodb_writer import RowRef


class IncompleteBatchError(RetrievalError):
    """A batched DynamoDB call left work unprocessed after every retry round."""


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
