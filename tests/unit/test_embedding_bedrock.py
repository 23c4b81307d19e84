"""The Bedrock embedder against a real botocore client: requests and responses through botocore's Stubber,
connection failures against a closed port on 127.0.0.1. Nothing leaves the machine."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.response import StreamingBody
from botocore.stub import Stubber
from retrieval_core import backend_calls
from retrieval_core.aws import deadline_bound_client
from retrieval_core.config import Settings
from retrieval_core.embedding import BedrockEmbedder, EmbeddingDimensionMismatchError, embedder_from_settings
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import BackendUnavailableError, DeadlineExceededError
from retrieval_core.ports import Embedder

from dev.processes import free_port

MODEL = "amazon.titan-embed-text-v2:0"


class JsonBody:
    """Matches a request body by its JSON value, so the test pins content, not key order or spacing."""

    def __init__(self, expected: dict[str, Any]) -> None:
        self.expected = expected

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str | bytes) and json.loads(other) == self.expected

    def __repr__(self) -> str:
        return f"JsonBody({self.expected!r})"


def client(endpoint_url: str | None = None) -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=endpoint_url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1, read_timeout=1),
    )


def titan_response(embedding: list[float]) -> dict[str, Any]:
    return raw_response(json.dumps({"embedding": embedding, "inputTextTokenCount": 3}).encode())


def raw_response(payload: bytes) -> dict[str, Any]:
    return {"body": StreamingBody(io.BytesIO(payload), len(payload)), "contentType": "application/json"}


def expect_call(stubber: Stubber, text: str, dimension: int, normalize: bool, embedding: list[float]) -> None:
    stubber.add_response(
        "invoke_model",
        titan_response(embedding),
        {
            "modelId": MODEL,
            "body": JsonBody({"inputText": text, "dimensions": dimension, "normalize": normalize}),
            "contentType": "application/json",
            "accept": "application/json",
        },
    )


@pytest.fixture
def stubbed() -> Iterator[tuple[Any, Stubber]]:
    bedrock = client()
    with Stubber(bedrock) as stubber:
        yield bedrock, stubber
        stubber.assert_no_pending_responses()


def test_one_invoke_per_text_with_the_titan_v2_body(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, stubber = stubbed
    first, second = [0.6, 0.8] + [0.0] * 254, [0.0] * 255 + [1.0]
    expect_call(stubber, "first text", 256, True, first)
    expect_call(stubber, "second text", 256, True, second)
    embedder = BedrockEmbedder(dimension=256, client=bedrock)
    assert embedder.embed(["first text", "second text"]) == [first, second]


def test_normalize_flag_and_dimension_are_sent_as_configured(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, stubber = stubbed
    raw = [2.0] * 512
    expect_call(stubber, "raw", 512, False, raw)
    assert BedrockEmbedder(dimension=512, normalize=False, client=bedrock).embed(["raw"]) == [raw]


def test_port_identity() -> None:
    embedder: Embedder = BedrockEmbedder(client=client())  # mypy checks the port
    assert (embedder.dimension, embedder.name) == (1024, f"bedrock:{MODEL}")


def test_no_texts_makes_no_call(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, _ = stubbed  # any call would fail: nothing is queued
    assert BedrockEmbedder(client=bedrock).embed([]) == []


def test_service_errors_become_backend_unavailable(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, stubber = stubbed
    stubber.add_client_error(
        "invoke_model",
        service_error_code="ThrottlingException",
        service_message="slow down",
        http_status_code=429,
    )
    with pytest.raises(BackendUnavailableError) as caught:
        BedrockEmbedder(client=bedrock).embed(["text"])
    assert status_of(caught.value) == 503
    assert "slow down" not in str(caught.value.to_body())


def test_wrong_sized_embedding_is_backend_unavailable(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, stubber = stubbed
    expect_call(stubber, "text", 256, True, [1.0] * 255)
    with pytest.raises(BackendUnavailableError):
        BedrockEmbedder(dimension=256, client=bedrock).embed(["text"])


@pytest.mark.parametrize("payload", [b"not json", b'{"message": "no embedding"}', b'{"embedding": null}'])
def test_unreadable_response_is_backend_unavailable(stubbed: tuple[Any, Stubber], payload: bytes) -> None:
    bedrock, stubber = stubbed
    stubber.add_response("invoke_model", raw_response(payload))
    with pytest.raises(BackendUnavailableError):
        BedrockEmbedder(client=bedrock).embed(["text"])


def test_unreachable_endpoint_becomes_backend_unavailable() -> None:
    port = free_port()  # free a moment ago: nothing listens there
    embedder = BedrockEmbedder(client=client(f"http://127.0.0.1:{port}"))
    with pytest.raises(BackendUnavailableError):
        embedder.embed(["text"])


def test_titan_v2_rejects_an_unsupported_dimension() -> None:
    with pytest.raises(EmbeddingDimensionMismatchError, match="256 or 512 or 1024"):
        BedrockEmbedder(dimension=384)


def test_factory_builds_bedrock_with_the_configured_dimension() -> None:
    embedder = embedder_from_settings(Settings(embedder="bedrock", embedding_dimension=512))
    assert isinstance(embedder, BedrockEmbedder)
    assert (embedder.dimension, embedder.name) == (512, f"bedrock:{MODEL}")
    assert embedder_from_settings(Settings(embedder="bedrock", embedding_dimension=512)) is embedder


def test_factory_rejects_a_dimension_titan_v2_cannot_produce() -> None:
    with pytest.raises(EmbeddingDimensionMismatchError):
        embedder_from_settings(Settings(embedder="bedrock", embedding_dimension=384))


def test_no_embedding_starts_without_time_for_it_before_the_deadline(stubbed: tuple[Any, Stubber]) -> None:
    bedrock, _ = stubbed  # nothing queued: a call that started would fail the Stubber instead
    with backend_calls.within(0.5), pytest.raises(DeadlineExceededError) as refused:
        BedrockEmbedder(client=bedrock).embed(["text"])
    assert status_of(refused.value) == 503


@pytest.mark.parametrize(
    ("service", "operation"), [("bedrock-runtime", "InvokeModel"), ("bedrock-agent-runtime", "Rerank")]
)
def test_the_deployed_clients_refuse_an_attempt_that_cannot_finish_before_the_deadline(
    service: str, operation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every attempt, retries included, passes the event botocore sends before it; with too little time
    left the attempt is refused there, and with enough it goes ahead."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    made = deadline_bound_client(service, "us-east-1", connect_seconds=1, read_seconds=2, attempts=2)
    event = f"before-send.{service}.{operation}"
    with backend_calls.within(2.5), pytest.raises(DeadlineExceededError):
        made.meta.events.emit(event, request=None)
    with backend_calls.within(10):
        made.meta.events.emit(event, request=None)
    assert made.meta.config.read_timeout == 2 and made.meta.config.retries["total_max_attempts"] == 2
