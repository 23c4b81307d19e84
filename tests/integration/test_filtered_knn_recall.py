"""Filtered k-NN keeps its recall: at 1%, 10% and 50% of a context, recall@10 of the store's filtered
vector query (the filter inside the ``knn`` clause) against exact filtered search (brute force in numpy)
is at least 0.95, and a restrictive filter still fills ``top_k``. Latency per selectivity lives in
``make bench`` (filtered section)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.index import ContextIndices, IndexSpec
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.config import Settings
from retrieval_core.models.metadata import FieldType

from dev.tables import scratch_space
from tests.integration.bucketed_vectors import clustered, filtered_recalls, load

CTX = "recall"
SIZE = 2000
DIMENSION = 32
QUERIES = 20
K = 10
SELECTIVITIES = (1, 10, 50)


@pytest.fixture(scope="module")
def recall_index(
    stack_settings: Settings, opensearch: Any
) -> Iterator[tuple[OpenSearchStore, np.ndarray, np.ndarray]]:
    """``SIZE`` clustered unit vectors, each with ``metadata.bucket`` in 0..99."""
    vectors, buckets = clustered(np.random.default_rng(16), SIZE, DIMENSION)
    with scratch_space(stack_settings, "r") as settings:
        layout = IndexLayout.of(settings)
        indices = ContextIndices(
            opensearch, layout, IndexSpec(DIMENSION, metadata={"bucket": FieldType.NUMBER})
        )
        load(opensearch, layout, indices, CTX, vectors, buckets)
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
    assert int((buckets < percent).sum()) == SIZE * percent // 100
    recalls = filtered_recalls(store, CTX, vectors, buckets, percent=percent, queries=QUERIES, k=K)
    assert float(np.mean(recalls)) >= 0.95, recalls
