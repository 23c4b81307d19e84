"""The item index: explicit mappings behind an alias, lucene HNSW vectors, documents routed by context.

Only the ``lucene`` k-NN engine is used: it supports efficient filtering inside the ``knn`` clause and
needs no native library (the local node's k-NN plugin ships none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import IndexDimensionMismatchError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

INDEX_VERSION = 1
VECTOR_FIELD = "embedding"
KNN_ENGINE = "lucene"
KNN_SPACE = "cosinesimil"
TEXT_ANALYZER = "item_text"


def index_name(alias: str) -> str:
    return f"{alias}-v{INDEX_VERSION}"


def index_body(dimension: int, *, shards: int, replicas: int, refresh_interval: str) -> dict[str, Any]:
    """Settings and strict mappings for the item index."""
    return {
        "settings": {
            "index": {
                "knn": True,
                "number_of_shards": shards,
                "number_of_replicas": replicas,
                "refresh_interval": refresh_interval,
            },
            "analysis": {
                "filter": {
                    "english_possessive": {"type": "stemmer", "language": "possessive_english"},
                    "english_stemmer": {"type": "stemmer", "language": "english"},
                },
                "analyzer": {
                    # Porter stemming, no stop-word list: BM25's IDF already discounts frequent words,
                    # and on Cranfield dropping the list scored better (docs/QUALITY.md).
                    TEXT_ANALYZER: {
                        "type": "custom",
                        "tokenizer": "standard",
                        "filter": ["english_possessive", "lowercase", "english_stemmer"],
                    }
                },
            },
        },
        "mappings": {
            "dynamic": "strict",
            "_routing": {"required": True},
            "properties": {
                "id": {"type": "keyword"},
                "context_id": {"type": "keyword"},
                "kind": {"type": "keyword"},
                "status": {"type": "keyword"},
                "entity_ids": {"type": "keyword"},
                "text": {"type": "text", "analyzer": TEXT_ANALYZER},
                "confidence": {"type": "float"},
                "created_at": {"type": "date"},
                "valid_from": {"type": "date"},
                "valid_to": {"type": "date"},
                "source_ids": {"type": "keyword"},
                "supersedes": {"type": "keyword"},
                "contradicts": {"type": "keyword"},
                "mentions": {"type": "object", "enabled": False},
                "grounding": {"type": "object", "enabled": False},
                "metadata": {"type": "object", "enabled": False},
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {
                        "name": "hnsw",
                        "engine": KNN_ENGINE,
                        "space_type": KNN_SPACE,
                        "parameters": {"m": 16, "ef_construction": 128},
                    },
                },
            },
        },
    }


def ensure_index(
    client: OpenSearch, alias: str, dimension: int, *, shards: int, replicas: int, refresh_interval: str
) -> str:
    """Create the versioned index and its alias when absent; verify the vector dimension when present."""
    if client.indices.exists_alias(name=alias):
        mapping = client.indices.get_mapping(index=alias)
        for index, body in mapping.items():
            existing = body["mappings"]["properties"][VECTOR_FIELD]["dimension"]
            if existing != dimension:
                raise IndexDimensionMismatchError(
                    f"Index '{index}' holds {existing}-dimensional vectors but the embedder produces "
                    f"{dimension}. Use another alias (RETRIEVAL_OPENSEARCH_ALIAS) or rebuild the index."
                )
        return alias
    name = index_name(alias)
    body = index_body(dimension, shards=shards, replicas=replicas, refresh_interval=refresh_interval)
    client.indices.create(index=name, body={**body, "aliases": {alias: {}}})
    return alias
