"""The local stack does what the retrieval code relies on: lucene k-NN with efficient filters, BM25,
lexical + vector in one ``_msearch`` round trip, and template-shaped DynamoDB tables with conditional
writes. Everything runs against the real node and moto server started by ``make up``.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from botocore.exceptions import ClientError
from retrieval_core.config import Settings

from dev.tables import TEMPLATE_PATH, create_tables, delete_tables, load_table_schemas

DIMENSION = 64
CORPUS_SIZE = 1000
CONTEXTS = ("ctx-a", "ctx-b")
TOP_K = 10
EF_SEARCH = 100

# BM25 fixture: one document has both query terms, the others only one each.
LEXICAL_DOCS = {
    "both": "quantum lattice cryptography resists known attacks",
    "only-quantum": "quantum computing hardware roadmap",
    "only-lattice": "lattice reduction algorithms overview",
    "neither": "serverless retrieval for agents",
}
LEXICAL_QUERY = "quantum lattice"


def _corpus() -> np.ndarray:
    return np.random.default_rng(20240611).standard_normal((CORPUS_SIZE, DIMENSION)).astype(np.float32)


def _context_of(doc: int) -> str:
    return CONTEXTS[doc % len(CONTEXTS)]


def _create_index(opensearch: Any, name: str) -> None:
    opensearch.indices.create(
        index=name,
        body={
            "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
            "mappings": {
                "properties": {
                    "context_id": {"type": "keyword"},
                    "text": {"type": "text"},
                    "embedding": {
                        "type": "knn_vector",
                        "dimension": DIMENSION,
                        "method": {
                            "name": "hnsw",
                            "engine": "lucene",
                            "space_type": "cosinesimil",
                            "parameters": {"m": 16, "ef_construction": 128},
                        },
                    },
                }
            },
        },
    )


def _bulk(opensearch: Any, index: str, docs: dict[str, dict[str, Any]]) -> None:
    body: list[dict[str, Any]] = []
    for doc_id, source in docs.items():
        body += [{"index": {"_index": index, "_id": doc_id}}, source]
    response = opensearch.bulk(body=body, refresh=True)
    assert not response["errors"], response


@pytest.fixture
def vector_index(opensearch: Any, fresh_settings: Settings) -> tuple[str, np.ndarray]:
    """A k-NN index holding the random corpus (two contexts) plus the BM25 documents in ``ctx-a``."""
    index = f"{fresh_settings.opensearch_alias}-items"
    _create_index(opensearch, index)
    vectors = _corpus()
    docs = {
        str(doc): {
            "context_id": _context_of(doc),
            "text": f"filler {doc}",
            "embedding": vectors[doc].tolist(),
        }
        for doc in range(CORPUS_SIZE)
    }
    docs |= {key: {"context_id": CONTEXTS[0], "text": text} for key, text in LEXICAL_DOCS.items()}
    _bulk(opensearch, index, docs)
    return index, vectors


def _knn_body(vector: np.ndarray, context: str) -> dict[str, Any]:
    """A lucene k-NN query with the context filter inside the knn clause (filtered during the search)."""
    return {
        "size": TOP_K,
        "_source": ["context_id"],
        "query": {
            "knn": {
                "embedding": {
                    "vector": vector.tolist(),
                    "k": TOP_K,
                    "filter": {"term": {"context_id": context}},
                    # The lucene engine's candidate list defaults to k, which tops out near 0.85 recall.
                    "method_parameters": {"ef_search": EF_SEARCH},
                }
            }
        },
    }


def _exact_top_k(vectors: np.ndarray, query: np.ndarray, context: str) -> set[str]:
    ids = np.array([doc for doc in range(CORPUS_SIZE) if _context_of(doc) == context])
    candidates = vectors[ids]
    cosine = candidates @ query / (np.linalg.norm(candidates, axis=1) * np.linalg.norm(query))
    return {str(doc) for doc in ids[np.argsort(-cosine)[:TOP_K]]}


def test_knn_filtered_search_stays_in_context_with_high_recall(
    opensearch: Any, vector_index: tuple[str, np.ndarray]
) -> None:
    index, vectors = vector_index
    queries = np.random.default_rng(7).standard_normal((20, DIMENSION)).astype(np.float32)
    recalls = []
    for query in queries:
        hits = opensearch.search(index=index, body=_knn_body(query, CONTEXTS[0]))["hits"]["hits"]
        assert len(hits) == TOP_K
        assert {hit["_source"]["context_id"] for hit in hits} == {CONTEXTS[0]}
        found = {hit["_id"] for hit in hits}
        recalls.append(len(found & _exact_top_k(vectors, query, CONTEXTS[0])) / TOP_K)
    assert np.mean(recalls) >= 0.9, recalls


def test_bm25_match_ranks_the_document_with_all_terms_first(
    opensearch: Any, vector_index: tuple[str, np.ndarray]
) -> None:
    index, _ = vector_index
    body = {"query": {"match": {"text": LEXICAL_QUERY}}}
    hits = opensearch.search(index=index, body=body)["hits"]["hits"]
    assert [hit["_id"] for hit in hits[:1]] == ["both"]
    assert {hit["_id"] for hit in hits} == {"both", "only-quantum", "only-lattice"}


def test_msearch_carries_lexical_and_knn_in_one_round_trip(
    opensearch: Any, vector_index: tuple[str, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, vectors = vector_index
    connection = opensearch.transport.connection_pool.connections[0]
    sent: list[tuple[str, str]] = []
    perform = connection.perform_request

    def counting_perform(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append((method, url))
        return perform(method, url, *args, **kwargs)

    monkeypatch.setattr(connection, "perform_request", counting_perform)
    body = [
        {"index": index},
        {"size": TOP_K, "query": {"match": {"text": LEXICAL_QUERY}}},
        {"index": index},
        _knn_body(vectors[1], CONTEXTS[1]),
    ]
    responses = opensearch.msearch(body=body)["responses"]

    assert len(sent) == 1 and sent[0][1].endswith("/_msearch"), sent
    lexical, vector = responses
    assert lexical["hits"]["hits"][0]["_id"] == "both"
    knn_hits = vector["hits"]["hits"]
    assert knn_hits[0]["_id"] == "1"  # the query is document 1's own vector
    assert {hit["_source"]["context_id"] for hit in knn_hits} == {CONTEXTS[1]}


def test_template_table_accepts_conditional_write_and_rejects_violation(
    dynamodb: Any, fresh_settings: Settings
) -> None:
    table = fresh_settings.edges_table
    schema = load_table_schemas()["EdgesTable"]
    assert dynamodb.describe_table(TableName=table)["Table"]["KeySchema"] == schema["KeySchema"]
    item = {"pk": {"S": "ctx-a#entity-1"}, "sk": {"S": "edge#entity-2"}}
    dynamodb.put_item(TableName=table, Item=item, ConditionExpression="attribute_not_exists(pk)")

    with pytest.raises(ClientError) as raised:
        dynamodb.put_item(
            TableName=table,
            Item={**item, "weight": {"N": "2"}},
            ConditionExpression="attribute_not_exists(pk)",
        )
    assert raised.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    stored = dynamodb.get_item(TableName=table, Key=item)["Item"]
    assert "weight" not in stored


def test_sessions_table_has_the_templates_time_to_live(dynamodb: Any, fresh_settings: Settings) -> None:
    ttl = load_table_schemas()["SessionsTable"]["TimeToLiveSpecification"]
    described = dynamodb.describe_time_to_live(TableName=fresh_settings.sessions_table)
    assert described["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": ttl["AttributeName"],
    }


def test_tables_are_created_from_a_template_with_intrinsic_tags(
    dynamodb: Any, stack_settings: Settings, tmp_path: Path
) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(
        TEMPLATE_PATH.read_text()
        + "  Topic:\n    Type: AWS::SNS::Topic\n    Properties:\n"
        + "      TopicName: !Sub '${AWS::StackName}-topic'\n"
        + "      Tags:\n        - Key: table\n          Value: !GetAtt EdgesTable.Arn\n"
        + "        - Key: ref\n          Value: !If [IsProd, !Ref EdgesTable, !Ref 'AWS::NoValue']\n"
    )
    name = f"intrinsics-{uuid.uuid4().hex[:8]}"
    assert stack_settings.dynamodb_endpoint is not None
    create_tables(stack_settings.dynamodb_endpoint, {"LineageTable": name}, template_path=template)
    try:
        key_schema = dynamodb.describe_table(TableName=name)["Table"]["KeySchema"]
        assert key_schema == load_table_schemas(template)["LineageTable"]["KeySchema"]
    finally:
        delete_tables(stack_settings.dynamodb_endpoint, [name])
