"""LlamaIndex's `AmazonKnowledgeBasesRetriever` (llama-index-retrievers-bedrock, its newest release) as its
users set it up: it takes no endpoint, so `AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME` points boto3 at the
service (docs/BEDROCK.md); retrieve and aretrieve, with a filter."""

from __future__ import annotations

import asyncio

import pytest
from conftest import KNOWLEDGE_BASES, QUESTION


@pytest.fixture
def retriever(serve_url: str, dev_credentials: None, monkeypatch: pytest.MonkeyPatch) -> object:
    from llama_index.retrievers.bedrock import AmazonKnowledgeBasesRetriever

    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME", serve_url)
    return AmazonKnowledgeBasesRetriever(
        knowledge_base_id=KNOWLEDGE_BASES["acme"],
        retrieval_config={
            "vectorSearchConfiguration": {
                "numberOfResults": 4,
                "filter": {"equals": {"key": "x-retrieval-kind", "value": "proposition"}},
            }
        },
    )


def test_retrieve_returns_acme_s_propositions_with_our_metadata(retriever: object) -> None:
    nodes = retriever.retrieve(QUESTION)  # type: ignore[attr-defined]
    assert 0 < len(nodes) <= 4
    for node in nodes:
        metadata = node.node.metadata
        assert node.node.text and node.score is not None
        assert metadata["sourceMetadata"]["x-retrieval-kind"] == "proposition"
        assert metadata["sourceMetadata"]["x-retrieval-id"].startswith("acme:")


def test_aretrieve_answers_the_same(retriever: object) -> None:
    synchronous = [n.node.metadata["sourceMetadata"]["x-retrieval-id"] for n in retriever.retrieve(QUESTION)]  # type: ignore[attr-defined]
    asynchronous = asyncio.run(retriever.aretrieve(QUESTION))  # type: ignore[attr-defined]
    assert [n.node.metadata["sourceMetadata"]["x-retrieval-id"] for n in asynchronous] == synchronous
