"""The Bedrock reranker against botocore's own service model for bedrock-agent-runtime ``Rerank``: the
Stubber checks every request we send against the installed model's shapes and answers with responses
that must be valid for it too (that is the real API contract; no other fake)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber
from retrieval_core import backend_calls
from retrieval_core.adapters.bedrock_rerank import (
    CONNECT_TIMEOUT_SECONDS,
    READ_TIMEOUT_SECONDS,
    BedrockReranker,
)
from retrieval_core.aws import bind_attempts_to_deadline
from retrieval_core.errors import BackendUnavailableError, DeadlineExceededError

MODEL = "amazon.rerank-v1:0"
ARN = f"arn:aws:bedrock:us-east-1::foundation-model/{MODEL}"
TEXTS = ["lift of a thin wing", "boundary layer transition", "shock waves at mach 3"]


@pytest.fixture
def client() -> Any:
    made = boto3.client(
        "bedrock-agent-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    bind_attempts_to_deadline(made, CONNECT_TIMEOUT_SECONDS + READ_TIMEOUT_SECONDS)
    return made


def expected_request(texts: list[str], query: str = "wing lift") -> dict[str, Any]:
    return {
        "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
        "sources": [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": t}}}
            for t in texts
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": {
                "numberOfResults": len(texts),
                "modelConfiguration": {"modelArn": ARN},
            },
        },
    }


def test_success_returns_a_score_per_text_in_input_order(client: Any) -> None:
    reranker = BedrockReranker(model_id=MODEL, region="us-east-1", client=client)
    with Stubber(client) as stub:
        # The service answers best first; the port answers in input order.
        stub.add_response(
            "rerank",
            {
                "results": [
                    {"index": 0, "relevanceScore": 0.91},
                    {"index": 2, "relevanceScore": 0.40},
                    {"index": 1, "relevanceScore": 0.05},
                ]
            },
            expected_request(TEXTS),
        )
        assert reranker.rerank("wing lift", TEXTS) == [0.91, 0.05, 0.40]
        stub.assert_no_pending_responses()
    assert reranker.name == f"bedrock:{MODEL}"


def test_cohere_model_is_addressed_by_its_arn(client: Any) -> None:
    reranker = BedrockReranker(model_id="cohere.rerank-v3-5:0", region="us-east-1", client=client)
    request = expected_request(TEXTS[:1])
    request["rerankingConfiguration"]["bedrockRerankingConfiguration"]["modelConfiguration"]["modelArn"] = (
        "arn:aws:bedrock:us-east-1::foundation-model/cohere.rerank-v3-5:0"
    )
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": [{"index": 0, "relevanceScore": 0.3}]}, request)
        assert reranker.rerank("wing lift", TEXTS[:1]) == [0.3]


@pytest.mark.parametrize(
    "code", ["ThrottlingException", "ServiceQuotaExceededException", "AccessDeniedException"]
)
def test_a_refusal_is_an_unavailable_backend(client: Any, code: str) -> None:
    reranker = BedrockReranker(model_id=MODEL, region="us-east-1", client=client)
    with Stubber(client) as stub:
        stub.add_client_error("rerank", service_error_code=code, http_status_code=429)
        with pytest.raises(BackendUnavailableError):
            reranker.rerank("wing lift", TEXTS)


def test_a_read_timeout_is_an_unavailable_backend(client: Any) -> None:
    def time_out(**_: Any) -> None:
        raise ReadTimeoutError(endpoint_url="https://bedrock-agent-runtime.us-east-1.amazonaws.com/rerank")

    reranker = BedrockReranker(model_id=MODEL, region="us-east-1", client=client)
    with Stubber(client):
        client.meta.events.register_first("before-call.bedrock-agent-runtime.Rerank", time_out)
        with pytest.raises(BackendUnavailableError):
            reranker.rerank("wing lift", TEXTS)


def test_no_call_starts_without_time_for_it_before_the_deadline(client: Any) -> None:
    reranker = BedrockReranker(model_id=MODEL, region="us-east-1", client=client)
    with Stubber(client) as stub, backend_calls.within(0.5):
        # Nothing is queued: a call that started would fail the Stubber instead.
        with pytest.raises(DeadlineExceededError):
            reranker.rerank("wing lift", TEXTS)
        stub.assert_no_pending_responses()


@pytest.mark.parametrize(
    "results",
    [
        [{"index": 0, "relevanceScore": 0.9}],  # fewer results than texts
        [
            {"index": 0, "relevanceScore": 0.9},
            {"index": 0, "relevanceScore": 0.8},
            {"index": 1, "relevanceScore": 0.1},
        ],
        [
            {"index": 0, "relevanceScore": 0.9},
            {"index": 1, "relevanceScore": 0.8},
            {"index": 7, "relevanceScore": 0.1},
        ],
        [],
        [
            {"index": 0, "relevanceScore": float("nan")},
            {"index": 1, "relevanceScore": 0.8},
            {"index": 2, "relevanceScore": 0.1},
        ],
    ],
)
def test_a_malformed_answer_is_an_unavailable_backend(client: Any, results: list[dict[str, Any]]) -> None:
    reranker = BedrockReranker(model_id=MODEL, region="us-east-1", client=client)
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": results})
        with pytest.raises(BackendUnavailableError):
            reranker.rerank("wing lift", TEXTS)
