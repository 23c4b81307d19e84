"""Filtered k-NN keeps its recall: at 1%, 10% and 50% of a context, recall@10 of the store's filtered
vector query (the filter inside the ``knn`` clause) against exact filtered search (brute force in numpy)
is at least 0.95, and a restrictive filter still fills ``top_k``. Latency per selectivity lives in
``make bench`` (filtered section)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from retrieval_core.adapters.opensearch import writer
from retrieval_core.adapters.opensearch.documents import document_of
from retrieval_core.adapters.opensearch.index import ContextIndices, IndexSpec
from retrieval_core.adapters.opensearch.layout import IndexLayout
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.config import Settings
from retrieval_core.models.filters import Filter
from retrieval_core.models.item import Item
from retrieval_core.models.metadata import FieldType
from retrieval_core.ports import SearchFilters

from dev.tables import scratch_space

CTX = "recall"
SIZE = 2000
DIMENSION = 32
CLUSTERS = 20
QUERIES = 20
K = 10
SELECTIVITIES = (1, 10, 50)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def recall_index(
    stack_settings: Settings, opensearch: Any
) -> Iterator[tuple[OpenSearchStore, np.ndarray, np.ndarray]]:
    """``SIZE`` clustered unit vectors, each with ``metadata.bucket`` in 0..99 (exactly 1% per bucket,
    independent of the clusters)."""
    rng = np.random.default_rng(16)
    centroids = rng.standard_normal((CLUSTERS, DIMENSION))
    vectors = _unit(
        centroids[rng.integers(0, CLUSTERS, SIZE)] + 0.35 * rng.standard_normal((SIZE, DIMENSION))
    )
    buckets = rng.permutation(SIZE) % 100
    with scratch_space(stack_settings, "r") as settings:
        layout = IndexLayout.of(settings)
        indices = ContextIndices(
            opensearch, layout, IndexSpec(DIMENSION, metadata={"bucket": FieldType.NUMBER})
        )
        indices.ensure(CTX)
        documents = [
            document_of(
                Item(
                    context_id=CTX,
                    id=f"{CTX}:v-{n:04d}",
                    kind="document",
                    text=f"vector {n}",
                    created_at="2026-01-01T00:00:00Z",
                    metadata={"bucket": int(buckets[n])},
                ),
                [float(v) for v in vectors[n]],
            )
            for n in range(SIZE)
        ]
        for start in range(0, SIZE, 500):
            assert writer.bulk_index(opensearch, layout, documents[start : start + 500]) == []
        indices.refresh([CTX])
        yield (
            OpenSearchStore(opensearch, layout, timeout=settings.opensearch_timeout_seconds),
            vectors,
            buckets,
        )


@pytest.mark.parametrize("percent", SELECTIVITIES)
def test_filtered_knn_recall_at_10_is_at_least_095(
    recall_index: tuple[OpenSearchStore, np.ndarray, np.ndarray], percent: int
) -> None:
    store, vectors, buckets = recall_index
    rng = np.random.default_rng(percent)
    queries = _unit(vectors[rng.integers(0, SIZE, QUERIES)] + 0.1 * rng.standard_normal((QUERIES, DIMENSION)))
    where = Filter.model_validate({"lt": {"key": "metadata.bucket", "value": percent}})
    allowed = np.flatnonzero(buckets < percent)
    assert len(allowed) == SIZE * percent // 100
    recalls = []
    for query in queries:
        hits = store.vector(CTX, [float(v) for v in query], SearchFilters(size=K, where=where))
        found = [int(h.id.rsplit("-", 1)[1]) for h in hits]
        assert len(found) == K, "a restrictive filter must still fill top_k"
        assert all(buckets[n] < percent for n in found)
        exact = allowed[np.argsort(-(vectors[allowed] @ query))[:K]]
        recalls.append(len(set(found) & set(exact.tolist())) / K)
    assert float(np.mean(recalls)) >= 0.95, recalls
