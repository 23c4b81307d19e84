"""Issue 51: the deployed embedder's calls, through real botocore against a local stand-in for Bedrock
Runtime (``dev.bedrock_stub``): a batch keeps ``concurrency`` calls in flight, keeps its texts' order,
and rides out Bedrock's throttling answers with botocore's backoff; one text (a query) is one call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from retrieval_core import backend_calls
from retrieval_core.embedding.bedrock import BedrockEmbedder
from retrieval_core.errors import DeadlineExceededError

from dev.bedrock_stub import StubBehaviour, embedding_of, in_process


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
    }.items():
        monkeypatch.setenv(name, value)
    yield monkeypatch


def embedder_at(endpoint: str, patch: pytest.MonkeyPatch, concurrency: int) -> BedrockEmbedder:
    patch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", endpoint)
    return BedrockEmbedder(dimension=256, region="us-east-1", concurrency=concurrency)


def test_a_batch_keeps_its_bound_in_flight_and_its_order(aws_env: pytest.MonkeyPatch) -> None:
    behaviour = StubBehaviour(meet=4)  # the first four calls pass only once all four are in flight
    texts = [f"chunk number {n} of the handbook" for n in range(40)]
    with in_process(behaviour) as endpoint:
        vectors = embedder_at(endpoint, aws_env, concurrency=4).embed(texts)
    assert vectors == [pytest.approx(embedding_of(text, 256)) for text in texts]
    assert behaviour.calls == 40 and behaviour.most_in_flight == 4


def test_throttled_calls_are_retried_and_every_text_is_embedded(aws_env: pytest.MonkeyPatch) -> None:
    behaviour = StubBehaviour(throttle_every=5)
    texts = [f"page {n}" for n in range(12)]
    with in_process(behaviour) as endpoint:
        vectors = embedder_at(endpoint, aws_env, concurrency=3).embed(texts)
    assert len(vectors) == 12 and vectors[7] == pytest.approx(embedding_of("page 7", 256))
    assert behaviour.throttled >= 2 and behaviour.calls == 12 + behaviour.throttled


def test_one_text_is_one_call(aws_env: pytest.MonkeyPatch) -> None:
    behaviour = StubBehaviour()
    with in_process(behaviour) as endpoint:
        (vector,) = embedder_at(endpoint, aws_env, concurrency=8).embed(["who leads payments?"])
    assert vector == pytest.approx(embedding_of("who leads payments?", 256))
    assert behaviour.calls == 1


def test_the_batchs_calls_keep_the_callers_deadline(aws_env: pytest.MonkeyPatch) -> None:
    # The pool's threads carry the request's deadline: with too little time left no call starts.
    behaviour = StubBehaviour()
    with in_process(behaviour) as endpoint, backend_calls.within(1.0), pytest.raises(DeadlineExceededError):
        embedder_at(endpoint, aws_env, concurrency=4).embed(["a", "b", "c"])
    assert behaviour.calls == 0
