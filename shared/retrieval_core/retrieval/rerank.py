"""The rerank stage: after fusion (or a single arm), reorder the top ``depth`` hits.

Two methods: ``model`` asks the deployment's ``Reranker`` (Amazon Bedrock Rerank in the cloud) how
relevant each hit's text is to the query; ``mmr`` reorders by maximal marginal relevance over the
hits' own stored vectors (one extra read, in the caller's context). Only the given hits are reordered:
nothing is added, so a reranked page never holds an item the search did not find for this caller and
filter. A reranker that fails or runs out of time leaves the order as it was and says why in
``applied.rerank`` ("skipped: <reason>"): reranking improves an answer, it never costs one.

After reranking, the pool's hits take the pool's scores in their new order (the best score to the new
first hit), so ``score`` still decreases down the ranking and stays comparable with the hits below
the pool; the reranker's own score is reported as ``signals.rerank``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import BackendUnavailableError
from ..models.hits import Hit, Signal
from ..models.limits import WHOLE
from ..ports import Reranker, VectorReader
from .mmr import mmr_order

log = logging.getLogger(__name__)

RERANK_ARM = "rerank"
MAX_RERANK_DEPTH = 100
DEFAULT_RERANK_DEPTH = 30
RerankMethod = Literal["none", "model", "mmr"]


class RerankOptions(BaseModel):
    """Which reranker reorders the top of the ranking, and how deep."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, strict=True)

    method: RerankMethod = Field(
        default="none",
        description="`model`: the deployment's rerank model (Amazon Bedrock Rerank); `mmr`: maximal "
        "marginal relevance over the hits' own vectors; `none`: the fused order.",
    )
    depth: Annotated[int, WHOLE] = Field(
        default=DEFAULT_RERANK_DEPTH,
        ge=1,
        le=MAX_RERANK_DEPTH,
        description="How many of the top hits are reranked; the ones below keep their order.",
    )
    mmr_lambda: float = Field(
        default=0.7,
        ge=0,
        le=1,
        alias="lambda",
        allow_inf_nan=False,
        description="mmr: 1 is pure relevance (the fused order), lower values favour hits unlike the "
        "ones above them.",
    )

    def describe(self) -> str:
        if self.method == "mmr":
            return f"mmr(lambda={self.mmr_lambda:g}, depth={self.depth})"
        return f"{self.method}(depth={self.depth})"


class RerankStage:
    """Built once per container with the deployment's reranker and vector reads."""

    def __init__(self, *, reranker: Reranker | None, vectors: VectorReader | None) -> None:
        self._reranker = reranker
        self._vectors = vectors

    def apply(
        self, context_id: str, hits: list[Hit], query: str | None, options: RerankOptions
    ) -> tuple[list[Hit], str | None]:
        """The hits with their top ``options.depth`` reordered (MMR reads their vectors in
        ``context_id``), and what ``applied.rerank`` says."""
        if options.method == "none" or not hits:
            return hits, None
        pool, rest = hits[: options.depth], hits[options.depth :]
        try:
            if options.method == "mmr":
                scored = self._mmr(context_id, pool, options)
            else:
                scored = self._model(pool, query)
        except _Skipped as skipped:
            return hits, f"skipped: {skipped.reason}"
        except BackendUnavailableError as error:
            log.warning("rerank skipped: %s", type(error).__name__)
            return hits, f"skipped: {_reason(error)}"
        return reranked(pool, scored) + rest, self._describe(options)

    def _describe(self, options: RerankOptions) -> str:
        if options.method == "model" and self._reranker is not None:
            return f"{self._reranker.name}(depth={options.depth})"
        return options.describe()

    def _model(self, pool: Sequence[Hit], query: str | None) -> list[tuple[int, float]]:
        if self._reranker is None:
            raise _Skipped("no rerank model is configured for this deployment")
        if not query:
            raise _Skipped("a rerank model needs the request's text")
        scores = self._reranker.rerank(query, [hit.text for hit in pool])
        if len(scores) != len(pool):
            raise _Skipped("the rerank model answered for a different number of hits")
        return sorted(enumerate(scores), key=lambda pair: (-pair[1], pair[0]))

    def _mmr(self, context_id: str, pool: Sequence[Hit], options: RerankOptions) -> list[tuple[int, float]]:
        if self._vectors is None:
            raise _Skipped("this store cannot read stored vectors")
        stored = self._vectors.vectors(context_id, [hit.id for hit in pool])
        vectors = [found.vector if (found := stored.get(hit.id)) else None for hit in pool]
        return mmr_order([hit.score for hit in pool], vectors, options.mmr_lambda)


def reranked(pool: Sequence[Hit], scored: Sequence[tuple[int, float]]) -> list[Hit]:
    """``pool`` in the order of ``scored`` (input index, reranker score), each hit taking the pool's
    scores best-first and carrying its reranker score and new rank as ``signals.rerank``."""
    scores = sorted((hit.score for hit in pool), reverse=True)
    result = []
    for position, (index, rerank_score) in enumerate(scored):
        hit = pool[index]
        signals = {**hit.signals, RERANK_ARM: Signal(rank=position + 1, score=float(rerank_score))}
        result.append(hit.model_copy(update={"score": scores[position], "signals": signals}))
    return result


class _Skipped(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _reason(error: BackendUnavailableError) -> str:
    from ..errors import DeadlineExceededError

    if isinstance(error, DeadlineExceededError):
        return "the request's deadline left no time to rerank"
    return "the rerank model is unavailable"
