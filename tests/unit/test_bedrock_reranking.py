"""Bedrock's ``rerankingConfiguration`` on the Knowledge Bases route: it becomes our rerank stage with the
deployment's model over the top ``numberOfRerankedResults``; a model the deployment does not run, or any
model where none is configured, is a ValidationException, never a silent change of ranking."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fake_functions import ACME_KB, FakeFunctions, fake_functions
from retrieval_core.config import Settings
from retrieval_core.entrypoints.bedrock.request import retrieve_request
from retrieval_core.errors import InvalidRequestError
from retrieval_core.retrieval.rerank import DEFAULT_RERANK_DEPTH, RerankOptions
from test_bedrock_retrieve import kb_event, ok, refused

MODEL = "amazon.rerank-v1:0"
ARN = f"arn:aws:bedrock:us-west-2::foundation-model/{MODEL}"


def reranking(**bedrock: Any) -> dict[str, Any]:
    configuration: dict[str, Any] = {"type": "BEDROCK_RERANKING_MODEL"}
    if bedrock:
        configuration["bedrockRerankingConfiguration"] = bedrock
    return configuration


def body(configuration: dict[str, Any], **search: Any) -> dict[str, Any]:
    return {
        "retrievalQuery": {"text": "Alice payments ledger"},
        "retrievalConfiguration": {
            "vectorSearchConfiguration": {"rerankingConfiguration": configuration, **search}
        },
    }


@pytest.mark.parametrize(
    ("configuration", "depth"),
    [
        (reranking(modelConfiguration={"modelArn": ARN}, numberOfRerankedResults=12), 12),
        (reranking(modelConfiguration={"modelArn": ARN}), DEFAULT_RERANK_DEPTH),
        (reranking(modelConfiguration={"modelArn": ARN, "additionalModelRequestFields": {}}), 30),
        (reranking(), DEFAULT_RERANK_DEPTH),
    ],
)
def test_reranking_becomes_the_model_rerank_stage(configuration: dict[str, Any], depth: int) -> None:
    request = retrieve_request(body(configuration), "hybrid", MODEL)
    assert request.rerank == RerankOptions(method="model", depth=depth)


def test_without_reranking_the_request_keeps_the_deployment_s_default() -> None:
    request = retrieve_request({"retrievalQuery": {"text": "Alice"}}, "hybrid", MODEL)
    assert request.rerank is None


@pytest.mark.parametrize(
    ("configuration", "deployment", "says"),
    [
        (reranking(modelConfiguration={"modelArn": ARN}), "none", "has no rerank model"),
        (
            reranking(modelConfiguration={"modelArn": ARN.replace(MODEL, "cohere.rerank-v3-5:0")}),
            MODEL,
            f"modelArn: this deployment reranks with {MODEL}",
        ),
        (reranking(modelConfiguration={"modelArn": "amazon.rerank-v1:0"}), MODEL, "modelArn"),
        (reranking(modelConfiguration={"modelArn": ARN}, numberOfRerankedResults=0), MODEL, "numberOf"),
        (reranking(modelConfiguration={"modelArn": ARN}, numberOfRerankedResults=101), MODEL, "numberOf"),
        (
            reranking(modelConfiguration={"modelArn": ARN}, metadataConfiguration={"selectionMode": "ALL"}),
            MODEL,
            "reranking reads each result's text only",
        ),
        (
            reranking(modelConfiguration={"modelArn": ARN, "additionalModelRequestFields": {"top_n": 3}}),
            MODEL,
            "additionalModelRequestFields",
        ),
        ({"type": "OTHER"}, MODEL, "rerankingConfiguration.type"),
        ({"bedrockRerankingConfiguration": {"modelConfiguration": {"modelArn": ARN}}}, MODEL, "type"),
    ],
)
def test_reranking_the_deployment_cannot_honour_is_refused(
    configuration: dict[str, Any], deployment: str, says: str
) -> None:
    with pytest.raises(InvalidRequestError) as refusal:
        retrieve_request(body(configuration), "hybrid", deployment)
    assert says in str(refusal.value), str(refusal.value)


class ShortestFirst:
    """Prefers shorter texts, an order the fusion does not produce on these items."""

    name = "test:shortest-first"

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append((query, list(texts)))
        return [1.0 / len(text) for text in texts]


@pytest.fixture
def reranker() -> ShortestFirst:
    return ShortestFirst()


@pytest.fixture
def functions(reranker: ShortestFirst) -> Iterator[FakeFunctions]:
    with fake_functions(Settings(rerank_model=MODEL), reranker=reranker) as composed:
        yield composed


def test_the_route_answers_in_the_reranker_s_order_with_its_scores(
    functions: FakeFunctions, reranker: ShortestFirst
) -> None:
    configuration = reranking(modelConfiguration={"modelArn": ARN}, numberOfRerankedResults=3)
    answer = ok(functions, kb_event(ACME_KB, body(configuration, numberOfResults=3)))
    results = answer["retrievalResults"]
    texts = [result["content"]["text"] for result in results]
    assert reranker.calls and reranker.calls[0][0] == "Alice payments ledger"
    # The reranker's favourite leads (the page is then interleaved by kind, as every page is).
    assert texts[0] == min(texts, key=len)
    for result in results:
        rerank = result["metadata"]["x-retrieval-signals"]["rerank"]
        assert rerank["score"] == pytest.approx(1 / len(result["content"]["text"]))
    assert all(result["metadata"]["x-retrieval-id"].startswith("acme:") for result in results)


def test_a_model_the_deployment_does_not_run_is_a_validation_exception_and_calls_nothing(
    functions: FakeFunctions, reranker: ShortestFirst
) -> None:
    other = reranking(modelConfiguration={"modelArn": ARN.replace(MODEL, "cohere.rerank-v3-5:0")})
    status, code, message = refused(functions, kb_event(ACME_KB, body(other)))
    assert (status, code) == (400, "ValidationException")
    assert "this deployment reranks with" in message
    assert reranker.calls == []
