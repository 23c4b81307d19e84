"""Quantized vectors as a declared choice: an fp32 index rebuilt into int8 (Lucene's ``sq`` encoder) by
the product's rebuild (``retrieval rebuild``'s use case, no downtime), which then still answers filtered
k-NN at 1%, 10% and 50% of the context with recall@10 of at least 0.95 against exact fp32 search
(brute force in numpy), every hit inside the filter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.index import VECTOR_FIELD, ContextIndices, IndexSpec
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.config import Settings
from retrieval_core.models.metadata import FieldType

from dev.tables import scratch_space
from tests.integration.bucketed_vectors import clustered, filtered_recalls, load

CTX = "quant"
SIZE = 2000
QUERIES = 20
K = 10


def _encoder(opensearch: Any, alias: str) -> tuple[str, dict[str, Any]]:
    """The index behind ``alias`` and its vector field's HNSW parameters, as the node reports them."""
    ((index, body),) = opensearch.indices.get_mapping(index=alias).items()
    return index, body["mappings"]["properties"][VECTOR_FIELD]["method"]["parameters"]


@pytest.fixture(scope="module")
def rebuilt(
    stack_settings: Settings, opensearch: Any
) -> Iterator[tuple[OpenSearchStore, np.ndarray, np.ndarray]]:
    """``SIZE`` clustered unit vectors (the embedder's 384 dimensions) with ``metadata.bucket`` in 0..99,
    loaded into an fp32 index, then rebuilt into int8."""
    dimension = stack_settings.embedding_dimension
    vectors, buckets = clustered(np.random.default_rng(51), SIZE, dimension)
    with scratch_space(stack_settings, "q") as base:
        fp32 = base.model_copy(
            update={"metadata_fields": {"bucket": FieldType.NUMBER}, "opensearch_knn_m": 24}
        )
        layout = IndexLayout.of(fp32)
        embedder = bootstrap.Container(fp32).embedder.name
        indices = ContextIndices(opensearch, layout, IndexSpec.of(fp32, dimension, embedder=embedder))
        load(opensearch, layout, indices, CTX, vectors, buckets)
        alias = layout.alias(CTX)
        before, parameters = _encoder(opensearch, alias)
        assert "encoder" not in parameters and parameters["m"] == 24

        int8 = fp32.model_copy(update={"opensearch_vector_encoding": "int8"})
        (switch,) = bootstrap.Container(int8).rebuilder(lambda _: None).rebuild(CTX)

        after, parameters = _encoder(opensearch, alias)
        assert (switch.source, switch.target) == (before, after) and after != before
        assert parameters["encoder"]["name"] == "sq"
        assert parameters["m"] == 24  # the other declared parameters carried over
        assert not switch.reembedded  # quantizing reads the stored float vectors: nothing embedded again
        assert opensearch.count(index=alias)["count"] == SIZE
        yield bootstrap.Container(int8).store, vectors, buckets


@pytest.mark.parametrize("percent", (1, 10, 50))
def test_int8_filtered_knn_recall_at_10_against_exact_fp32_is_at_least_095(
    rebuilt: tuple[OpenSearchStore, np.ndarray, np.ndarray], percent: int
) -> None:
    store, vectors, buckets = rebuilt
    recalls = filtered_recalls(store, CTX, vectors, buckets, percent=percent, queries=QUERIES, k=K)
    assert float(np.mean(recalls)) >= 0.95, recalls
