"""Embedders behind the ``Embedder`` port: a local ONNX model for development and Bedrock for deployment.

Importing this package loads neither onnxruntime nor boto3; each adapter imports its libraries on first use.
"""

from .bedrock import BedrockEmbedder
from .errors import EmbeddingDimensionMismatchError
from .factory import embedder_from_settings
from .local import LocalEmbedder

__all__ = ["BedrockEmbedder", "EmbeddingDimensionMismatchError", "LocalEmbedder", "embedder_from_settings"]
