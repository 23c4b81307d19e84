"""Clustered unit vectors with a ``metadata.bucket`` in 0..99, loaded into one context, and filtered
k-NN recall@k against exact search over them: the recall tests' shared ground (fp32 and int8)."""

from __future__ import annotations

from typing import Any

import numpy as np
from retrieval_core.adapters.opensearch import writer
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.documents import document_of
from retrieval_core.adapters.opensearch.index import ContextIndices
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.models.filters import Filter
from retrieval_core.models.item import Item
from retrieval_core.ports import SearchFilters

CLUSTERS = 20
BULK = 500


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def clustered(rng: np.random.Generator, size: int, dimension: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` unit vectors around ``CLUSTERS`` centroids, and each one's bucket in 0..99 (exactly 1% per
    bucket, independent of the clusters)."""
    centroids = rng.standard_normal((CLUSTERS, dimension))
    vectors = unit(centroids[rng.integers(0, CLUSTERS, size)] + 0.35 * rng.standard_normal((size, dimension)))
    return vectors, rng.permutation(size) % 100


def load(
    opensearch: Any,
    layout: IndexLayout,
    indices: ContextIndices,
    context: str,
    vectors: np.ndarray,
    buckets: np.ndarray,
) -> None:
    """Every vector as an item ``<context>:v-NNNN`` through the product's bulk writer, then one refresh."""
    indices.ensure(context)
    documents = [
        document_of(
            Item(
                context_id=context,
                id=f"{context}:v-{n:04d}",
                kind="document",
                text=f"vector {n}",
                created_at="2026-01-01T00:00:00Z",
                metadata={"bucket": int(buckets[n])},
            ),
            [float(v) for v in vector],
        )
        for n, vector in enumerate(vectors)
    ]
    for start in range(0, len(documents), BULK):
        assert writer.bulk_index(opensearch, layout, documents[start : start + BULK]) == []
    indices.refresh([context])


def filtered_recalls(
    store: OpenSearchStore,
    context: str,
    vectors: np.ndarray,
    buckets: np.ndarray,
    *,
    percent: int,
    queries: int,
    k: int,
) -> list[float]:
    """Recall@k of the store's filtered vector query (``bucket < percent``) against exact filtered search,
    per query near a random item; asserts every answer fills ``k`` and stays inside the filter."""
    rng = np.random.default_rng(percent)
    asked = unit(
        vectors[rng.integers(0, len(vectors), queries)]
        + 0.1 * rng.standard_normal((queries, vectors.shape[1]))
    )
    where = Filter.model_validate({"lt": {"key": "metadata.bucket", "value": percent}})
    allowed = np.flatnonzero(buckets < percent)
    recalls = []
    for query in asked:
        hits = store.vector(context, [float(v) for v in query], SearchFilters(size=k, where=where))
        found = [int(h.id.rsplit("-", 1)[1]) for h in hits]
        assert len(found) == k, "a restrictive filter must still fill top_k"
        assert all(buckets[n] < percent for n in found)
        exact = allowed[np.argsort(-(vectors[allowed] @ query))[:k]]
        recalls.append(len(set(found) & set(exact.tolist())) / k)
    return recalls
