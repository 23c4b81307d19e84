"""Build the process's embedder from settings: local for development, Bedrock when deployed."""

from __future__ import annotations

from functools import cache

from ..config import Settings
from ..ports import Embedder
from .bedrock import BedrockEmbedder
from .errors import EmbeddingDimensionMismatchError
from .local import LocalEmbedder


def embedder_from_settings(settings: Settings) -> Embedder:
    """The embedder ``settings.embedder`` names, built once per process for the same configuration.

    Raises ``EmbeddingDimensionMismatchError`` when it cannot produce ``settings.embedding_dimension``
    vectors, the size the k-NN field was created with.
    """
    return _build(
        settings.embedder,
        settings.bedrock_model_id,
        settings.embedding_dimension,
        settings.aws_region,
        settings.bedrock_embed_concurrency,
    )


@cache
def _build(kind: str, bedrock_model_id: str, dimension: int, region: str, concurrency: int) -> Embedder:
    embedder: Embedder
    if kind == "bedrock":
        embedder = BedrockEmbedder(
            model_id=bedrock_model_id, dimension=dimension, region=region, concurrency=concurrency
        )
    else:
        embedder = LocalEmbedder()
    if embedder.dimension != dimension:
        raise EmbeddingDimensionMismatchError(embedder.name, embedder.dimension, dimension)
    return embedder
