"""The item index: explicit mappings behind an alias, lucene HNSW vectors, documents routed by context.

Only the ``lucene`` k-NN engine is used: it supports efficient filtering inside the ``knn`` clause and
needs no native library (the local node's k-NN plugin ships none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import RetrievalError
from ...models.metadata import FieldType, MetadataSchema

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

# 2: metadata and mention types became filterable (v1 kept metadata unindexed); rebuild to upgrade.
INDEX_VERSION = 2
VECTOR_FIELD = "embedding"
KNN_ENGINE = "lucene"
KNN_SPACE = "cosinesimil"
TEXT_ANALYZER = "item_text"


class IndexDimensionMismatchError(RetrievalError):
    """The index was built for vectors of another dimension than the configured embedder produces."""

    code = "index_dimension_mismatch"


class IndexMetadataMismatchError(RetrievalError):
    """The index types a declared metadata key differently from the declaration (or predates typing)."""

    code = "index_metadata_mismatch"


METADATA_MAPPING = {
    FieldType.KEYWORD: {"type": "keyword"},
    FieldType.NUMBER: {"type": "double"},
    FieldType.DATE: {"type": "date", "format": "strict_date_optional_time"},
    FieldType.BOOLEAN: {"type": "boolean"},
}

# Undeclared metadata keys: every scalar (string, number, boolean) is an exact-string keyword, whatever
# the first document held, so no tenant's values can fix a key's type for another; objects are kept
# in _source only. Date detection is off: a date-looking string stays a string unless declared.
METADATA_TEMPLATES = [
    {
        f"metadata_{json_type}": {
            "path_match": "metadata.*",
            "match_mapping_type": json_type,
            "mapping": {"type": "keyword"},
        }
    }
    for json_type in ("string", "long", "double", "boolean")
] + [
    {
        "metadata_object": {
            "path_match": "metadata.*",
            "match_mapping_type": "object",
            "mapping": {"type": "object", "enabled": False},
        }
    }
]


def metadata_properties(schema: MetadataSchema) -> dict[str, Any]:
    return {name: dict(METADATA_MAPPING[field_type]) for name, field_type in schema.items()}


def index_name(alias: str) -> str:
    return f"{alias}-v{INDEX_VERSION}"


def index_body(
    dimension: int,
    *,
    shards: int,
    replicas: int,
    refresh_interval: str,
    metadata: MetadataSchema | None = None,
) -> dict[str, Any]:
    """Settings and strict mappings for the item index; ``metadata`` declares typed metadata keys."""
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
            "date_detection": False,
            "dynamic_templates": METADATA_TEMPLATES,
            "_routing": {"required": True},
            "properties": {
                "id": {"type": "keyword"},
                "context_id": {"type": "keyword"},
                "kind": {"type": "keyword"},
                "status": {"type": "keyword"},
                "entity_ids": {"type": "keyword"},
                "mention_types": {"type": "keyword"},
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
                "metadata": {
                    "type": "object",
                    "dynamic": True,
                    "properties": metadata_properties(metadata or {}),
                },
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
    client: OpenSearch,
    alias: str,
    dimension: int,
    *,
    shards: int,
    replicas: int,
    refresh_interval: str,
    metadata: MetadataSchema | None = None,
) -> str:
    """Create the versioned index and its alias when absent; when present, verify the vector dimension
    and the declared metadata types (adding newly declared keys the index has not seen yet)."""
    if client.indices.exists_alias(name=alias):
        mapping = client.indices.get_mapping(index=alias)
        for index, body in mapping.items():
            existing = body["mappings"]["properties"][VECTOR_FIELD]["dimension"]
            if existing != dimension:
                raise IndexDimensionMismatchError(
                    f"Index '{index}' holds {existing}-dimensional vectors but the embedder produces "
                    f"{dimension}. Use another alias (RETRIEVAL_OPENSEARCH_ALIAS) or rebuild the index."
                )
            _check_metadata(client, index, body["mappings"]["properties"], metadata or {})
        return alias
    name = index_name(alias)
    body = index_body(
        dimension, shards=shards, replicas=replicas, refresh_interval=refresh_interval, metadata=metadata
    )
    client.indices.create(index=name, body={**body, "aliases": {alias: {}}})
    return alias


def _check_metadata(
    client: OpenSearch, index: str, properties: Mapping[str, Any], schema: MetadataSchema
) -> None:
    indexed = properties.get("metadata", {})
    if indexed.get("enabled") is False:
        raise IndexMetadataMismatchError(
            f"Index '{index}' predates filterable metadata (added in index version {INDEX_VERSION}). "
            "Rebuild it: load into a new alias (RETRIEVAL_OPENSEARCH_ALIAS) and switch over."
        )
    fields = indexed.get("properties", {})
    missing = {}
    for name, field_type in schema.items():
        wanted = METADATA_MAPPING[field_type]
        if name not in fields:
            missing[name] = dict(wanted)
        elif fields[name].get("type") != wanted["type"]:
            raise IndexMetadataMismatchError(
                f"Index '{index}' maps metadata.{name} as {fields[name].get('type')}, but it is declared "
                f"{field_type}. Rebuild the index, or declare the key as it is indexed."
            )
    if missing:
        client.indices.put_mapping(index=index, body={"properties": {"metadata": {"properties": missing}}})
