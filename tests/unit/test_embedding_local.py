"""The local embedder on the real int8 model: ranking sanity, the port's unit-length promise, determinism,
batch independence, 256-token truncation, and that importing it stays free of the heavy libraries."""

from __future__ import annotations

import math

import pytest
from retrieval_core.config import Settings
from retrieval_core.embedding import EmbeddingDimensionMismatchError, LocalEmbedder, embedder_from_settings
from retrieval_core.entrypoints.status import status_of
from retrieval_core.ports import Embedder

from tests.processes import python


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder(batch_size=3)


def test_satisfies_the_port(embedder: LocalEmbedder) -> None:
    port: Embedder = embedder  # mypy checks the port
    assert port.dimension == 384
    assert port.name == "local:all-MiniLM-L6-v2-int8"


def test_paraphrase_ranks_above_unrelated_sentence(embedder: LocalEmbedder) -> None:
    query, paraphrase, unrelated = embedder.embed(
        [
            "How do I reset my account password?",
            "Steps to change a forgotten login password",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert cosine(query, paraphrase) > cosine(query, unrelated) + 0.2
    # Unrelated texts stay far apart: pooling over padding, for one, would pull every short text together.
    assert cosine(query, unrelated) < 0.3


def test_vectors_are_unit_length_with_the_model_dimension(embedder: LocalEmbedder) -> None:
    vectors = embedder.embed(["short", "", "a somewhat longer sentence about lineage of data items " * 5])
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == 384
        assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)


def test_deterministic_across_calls_and_instances(embedder: LocalEmbedder) -> None:
    texts = ["graph traversal over entity edges", "retrieval session state"]
    assert embedder.embed(texts) == embedder.embed(texts)
    assert LocalEmbedder(batch_size=32).embed(texts) == embedder.embed(texts)


def test_batch_equals_one_by_one(embedder: LocalEmbedder) -> None:
    # Mixed lengths and a batch size that splits them, so padding and length-sorting are exercised.
    texts = [
        "one",
        "a medium length sentence about search",
        "tiny",
        "a much longer sentence that goes on about vector search, lexical search and how they are fused",
        "two words",
        "",
        "another medium sentence here",
    ]
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        (alone,) = embedder.embed([text])
        assert max(abs(x - y) for x, y in zip(vector, alone, strict=True)) < 1e-5


def test_truncates_at_256_tokens(embedder: LocalEmbedder) -> None:
    # "alpha12" is two WordPiece tokens ("alpha", "##12"): the head is about 380 tokens, its
    # 600-character prefix about 165, between the file's own 128 and the model's 256.
    head = " ".join(f"alpha{i}" for i in range(150))
    vectors = embedder.embed([head, head + " completely different tail about cooking", head[:600]])
    full, with_tail, prefix = vectors
    assert full == with_tail  # the tail lies beyond the 256-token window
    assert full != prefix  # but a 600-character prefix is shorter than the window (not cut at 128)


def test_empty_input_gives_no_vectors(embedder: LocalEmbedder) -> None:
    assert embedder.embed([]) == []


def test_batch_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        LocalEmbedder(batch_size=0)


def test_factory_builds_the_local_embedder_once() -> None:
    settings = Settings(embedder="local", embedding_dimension=384)
    first = embedder_from_settings(settings)
    assert isinstance(first, LocalEmbedder)
    assert embedder_from_settings(Settings(embedder="local", embedding_dimension=384)) is first


def test_factory_rejects_a_dimension_the_local_model_cannot_produce() -> None:
    with pytest.raises(EmbeddingDimensionMismatchError, match="384") as caught:
        embedder_from_settings(Settings(embedder="local", embedding_dimension=1024))
    assert status_of(caught.value) == 500
    assert "384" not in str(caught.value.to_body())  # the body gives nothing of the configuration away


def test_importing_the_package_loads_no_heavy_library() -> None:
    probe = (
        "import sys, retrieval_core.embedding;"
        "print(','.join(m for m in ('onnxruntime', 'tokenizers', 'numpy', 'boto3', 'botocore')"
        " if m in sys.modules))"
    )
    result = python(probe)
    assert result.stdout.strip() == ""
