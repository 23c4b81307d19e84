"""``Reranker`` on Amazon Bedrock's ``Rerank`` API (bedrock-agent-runtime): Amazon Rerank 1.0 or Cohere
Rerank 3.5, chosen by the template's ``RerankModel`` parameter.

One call reranks the whole pool. The client is built once per container with short timeouts and few
attempts, and an attempt that could not finish before the request's deadline is not started: the
rerank stage then keeps the fused order (``applied.rerank: "skipped: ..."``). boto3 comes from the
Lambda runtime and is imported only when a request first asks for a rerank.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .. import backend_calls
from ..aws import LazyClient, aws_failures, deadline_bound_client
from ..errors import BackendUnavailableError

log = logging.getLogger(__name__)

RERANK_MODELS = ("amazon.rerank-v1:0", "cohere.rerank-v3-5:0")
CONNECT_TIMEOUT_SECONDS = 1.0
READ_TIMEOUT_SECONDS = 2.0
MAX_ATTEMPTS = 2
MAX_TEXT_CHARS = 32_000
"""The service model's limit on a query or document text."""


class BedrockReranker:
    def __init__(self, *, model_id: str, region: str, client: Any = None) -> None:
        self._model_id = model_id
        self._model_arn = f"arn:aws:bedrock:{region}::foundation-model/{model_id}"
        self._client = LazyClient(lambda: new_client(region), client)

    @property
    def name(self) -> str:
        return f"bedrock:{self._model_id}"

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        backend_calls.require(CONNECT_TIMEOUT_SECONDS + READ_TIMEOUT_SECONDS)
        with aws_failures("bedrock", "rerank"):
            response = self._client.get().rerank(
                queries=[{"type": "TEXT", "textQuery": {"text": query[:MAX_TEXT_CHARS]}}],
                sources=[
                    {
                        "type": "INLINE",
                        "inlineDocumentSource": {
                            "type": "TEXT",
                            "textDocument": {"text": text[:MAX_TEXT_CHARS]},
                        },
                    }
                    for text in texts
                ],
                rerankingConfiguration={
                    "type": "BEDROCK_RERANKING_MODEL",
                    "bedrockRerankingConfiguration": {
                        "numberOfResults": len(texts),
                        "modelConfiguration": {"modelArn": self._model_arn},
                    },
                },
            )
        return _scores(response, len(texts))


def _scores(response: Any, count: int) -> list[float]:
    """A score per input text, in input order; an answer that does not cover each text exactly once is
    a failing backend."""
    scores: dict[int, float] = {}
    try:
        for result in response["results"]:
            index, score = int(result["index"]), float(result["relevanceScore"])
            if not 0 <= index < count or index in scores or score != score:
                raise ValueError(index)
            scores[index] = score
    except (KeyError, TypeError, ValueError) as error:
        log.warning("bedrock rerank returned an unreadable answer")
        raise BackendUnavailableError() from error
    if len(scores) != count:
        log.warning("bedrock rerank scored %d of %d texts", len(scores), count)
        raise BackendUnavailableError()
    return [scores[i] for i in range(count)]


def new_client(region: str) -> Any:
    """A ``bedrock-agent-runtime`` client whose attempts each fit the request's deadline."""
    return deadline_bound_client(
        "bedrock-agent-runtime",
        region,
        connect_seconds=CONNECT_TIMEOUT_SECONDS,
        read_seconds=READ_TIMEOUT_SECONDS,
        attempts=MAX_ATTEMPTS,
    )
