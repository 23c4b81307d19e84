"""The deployed embedder: Amazon Titan Text Embeddings V2 on Bedrock, one InvokeModel per text.

boto3 is imported only when the client is first needed (the Lambda runtime provides it); the client is
created once per embedder and reused by every call, including from several threads. Its attempts are
short and none starts that could not finish before the request's deadline: a slow or throttled model
costs the caller a 503 with ``Retry-After``, not a Lambda timeout. (Ingest runs without a deadline.)

Titan v2 takes one text per call, so a batch (an ingest chunk's texts) is embedded ``concurrency``
calls at a time: a call's time is mostly the model's latency, so a function embeds about that many
times faster, up to the account's rate. Without a deadline (ingest, the CLI) calls go through a patient
client: ``PATIENT_ATTEMPTS`` attempts in botocore's adaptive mode, whose backoff and client-side rate
ride out Bedrock's throttling during a large load (docs/PERFORMANCE.md, "The deployed embedder").
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from .. import backend_calls
from ..aws import LazyClient, aws_failures, deadline_bound_client
from ..config import DEFAULT_EMBED_CONCURRENCY
from ..errors import BackendUnavailableError
from .errors import EmbeddingDimensionMismatchError

log = logging.getLogger(__name__)

TITAN_V2 = "amazon.titan-embed-text-v2:0"
CONNECT_TIMEOUT_SECONDS = 1.0
READ_TIMEOUT_SECONDS = 3.0
"""Titan answers a query-sized text in well under a second; an attempt that takes longer is retried."""
MAX_ATTEMPTS = 3
PATIENT_ATTEMPTS = 10
"""Attempts of a call made without a deadline: a throttled ingest waits (up to botocore's 20 s a retry)
rather than stops (with three, a bench run of 320 texts at one call in ten throttled lost a text, and a
load would have stopped there)."""
# Output sizes a model accepts in its request's "dimensions" field, for the models that take one.
SUPPORTED_DIMENSIONS: dict[str, tuple[int, ...]] = {TITAN_V2: (256, 512, 1024)}


class BedrockEmbedder:
    """``Embedder`` on a Titan-v2-style Bedrock model.

    ``normalize`` is passed to the model and defaults to True, which the ``Embedder`` port needs
    (cosine equals dot product); turn it off only to inspect raw vectors outside the port.
    ``client`` is a ready ``bedrock-runtime`` client; without one, the first call builds it.
    """

    def __init__(
        self,
        *,
        model_id: str = TITAN_V2,
        dimension: int = 1024,
        normalize: bool = True,
        region: str | None = None,
        client: Any = None,
        concurrency: int = DEFAULT_EMBED_CONCURRENCY,
    ) -> None:
        supported = SUPPORTED_DIMENSIONS.get(model_id)
        if supported is not None and dimension not in supported:
            raise EmbeddingDimensionMismatchError(f"bedrock:{model_id}", supported, dimension)
        self._model_id = model_id
        self._dimension = dimension
        self._normalize = normalize
        self._concurrency = max(1, concurrency)
        self._client = LazyClient(lambda: _new_client(region, self._concurrency), client)
        self._patient_client = LazyClient(
            lambda: _new_client(region, self._concurrency, patient=True), client
        )

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def name(self) -> str:
        return f"bedrock:{self._model_id}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length embeddings, one per text, in order. Titan v2 has no batch API: one call per text,
        up to ``concurrency`` of them in flight, each under the caller's deadline."""
        if len(texts) < 2 or self._concurrency == 1:
            return [self._embed_one(text) for text in texts]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(self._concurrency, len(texts))) as pool:
            return list(pool.map(backend_calls.carry(self._embed_one), texts))

    def _embed_one(self, text: str) -> list[float]:
        body = json.dumps({"inputText": text, "dimensions": self._dimension, "normalize": self._normalize})
        backend_calls.require(CONNECT_TIMEOUT_SECONDS + READ_TIMEOUT_SECONDS)
        with aws_failures("bedrock", "invoke_model"):
            client = self._client if backend_calls.remaining() is not None else self._patient_client
            response = client.get().invoke_model(
                modelId=self._model_id, body=body, contentType="application/json", accept="application/json"
            )
            raw = response["body"].read()
        return self._parse(raw)

    def _parse(self, raw: bytes) -> list[float]:
        """The response's embedding; anything else (bad JSON, wrong size) is a failing backend."""
        try:
            embedding = [float(value) for value in json.loads(raw)["embedding"]]
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("bedrock returned an unreadable embedding response")
            raise BackendUnavailableError() from exc
        if len(embedding) != self._dimension:
            log.warning("bedrock returned %d dimensions, expected %d", len(embedding), self._dimension)
            raise BackendUnavailableError()
        return embedding


def _new_client(region: str | None, connections: int, *, patient: bool = False) -> Any:
    return deadline_bound_client(
        "bedrock-runtime",
        region,
        connect_seconds=CONNECT_TIMEOUT_SECONDS,
        read_seconds=READ_TIMEOUT_SECONDS,
        attempts=PATIENT_ATTEMPTS if patient else MAX_ATTEMPTS,
        connections=connections,
        retry_mode="adaptive" if patient else "standard",
    )
