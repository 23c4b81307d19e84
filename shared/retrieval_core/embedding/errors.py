"""The one error this package raises on its own: an embedder whose vectors cannot fit the index."""

from __future__ import annotations

from typing import Any

from ..errors import RetrievalError


class EmbeddingDimensionMismatchError(RetrievalError):
    """The configured embedder cannot produce vectors of the configured ``embedding_dimension``.

    Raised while building the embedder (at cold start), so a misconfigured deployment fails loudly
    instead of writing or querying vectors the k-NN field would reject. The message names the embedder
    and both dimensions for the operator's log; the response body stays generic like any other 5xx.
    """

    def __init__(self, embedder: str, produces: int | tuple[int, ...], configured: int) -> None:
        produced = produces if isinstance(produces, int) else " or ".join(map(str, produces))
        super().__init__(
            f"Embedder {embedder!r} produces {produced}-dimensional vectors, "
            f"but embedding_dimension is {configured}."
        )
        self.embedder = embedder
        self.configured = configured

    def to_body(self) -> dict[str, Any]:
        return {"error": self.code, "message": "The service is misconfigured."}
