"""The item index: explicit mappings behind an alias, lucene HNSW vectors, documents routed by context.
Which index a context uses is ``layout.IndexLayout``'s decision; this module creates and checks them.

Only the ``lucene`` k-NN engine is used: it supports efficient filtering inside the ``knn`` clause and
needs no native library (the local node's k-NN plugin ships none).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...config import Settings
from ..errors import IndexDimensionMismatchError
from .client import backend_failures
from .layout import IndexLayout

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

_REFRESH_BATCH = 50
VECTOR_FIELD = "embedding"
KNN_ENGINE = "lucene"
KNN_SPACE = "cosinesimil"
TEXT_ANALYZER = "item_text"


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


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """What every item index is created with."""

    dimension: int
    shards: int = 1
    replicas: int = 0
    refresh_interval: str = "1s"

    @classmethod
    def of(cls, settings: Settings, dimension: int) -> IndexSpec:
        return cls(
            dimension,
            shards=settings.opensearch_shards,
            replicas=settings.opensearch_replicas,
            refresh_interval=settings.opensearch_refresh_interval,
        )

    def body(self) -> dict[str, Any]:
        return index_body(
            self.dimension, shards=self.shards, replicas=self.replicas, refresh_interval=self.refresh_interval
        )


class ContextIndices:
    """The write side's view of the layout: creates a context's index on its first write (checking the
    vector dimension of one that exists) and refreshes what a load touched."""

    def __init__(self, client: OpenSearch, layout: IndexLayout, spec: IndexSpec) -> None:
        self.client = client
        self.layout = layout
        self._spec = spec
        self._ready: set[str] = set()

    def ensure(self, context_id: str) -> str:
        """The context's alias, its index created first if absent (once per process and alias)."""
        alias = self.layout.alias(context_id)
        if alias in self._ready:
            return alias
        with backend_failures():
            if not self.client.indices.exists_alias(name=alias):
                self._create(context_id, alias)
            self._check_dimension(alias)
        self._ready.add(alias)
        return alias

    def refresh(self, context_ids: Iterable[str]) -> None:
        """Make what was written to these contexts searchable (once per load, not per chunk)."""
        aliases = sorted({self.layout.alias(c) for c in context_ids})
        for start in range(0, len(aliases), _REFRESH_BATCH):
            with backend_failures():
                self.client.indices.refresh(
                    index=",".join(aliases[start : start + _REFRESH_BATCH]), ignore_unavailable=True
                )

    def _create(self, context_id: str, alias: str) -> None:
        from opensearchpy.exceptions import RequestError

        try:
            self.client.indices.create(
                index=self.layout.index(context_id), body={**self._spec.body(), "aliases": {alias: {}}}
            )
        except RequestError as error:
            # Another writer created it first; the dimension check that follows still applies.
            if error.error != "resource_already_exists_exception":
                raise

    def _check_dimension(self, alias: str) -> None:
        for index, body in self.client.indices.get_mapping(index=alias).items():
            existing = body["mappings"]["properties"][VECTOR_FIELD]["dimension"]
            if existing != self._spec.dimension:
                raise IndexDimensionMismatchError(
                    f"Index '{index}' holds {existing}-dimensional vectors but the embedder produces "
                    f"{self._spec.dimension}. Use another alias (RETRIEVAL_OPENSEARCH_ALIAS) or rebuild "
                    "the index."
                )
