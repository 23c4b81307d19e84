"""What the k-NN vectors cost in memory: the index's vector files by kind (Lucene segment file sizes),
the k-NN plugin's own figure, and OpenSearch's sizing estimate beside them.

Lucene's HNSW lives in files the node memory-maps: the graph (``vex``), the float vectors (``vec``) and,
with the ``sq`` encoder, the quantized ones (``veq``). A search touches the graph and the vectors it
compares (the quantized ones when there are any), so those are what must stay in the page cache; the
float vectors of an int8 index are read only to rescore a few hits and for merges. The k-NN plugin's
``graph_memory_usage`` counts native (Faiss) graphs only, so it reads 0 for lucene: reported to say so.
The estimate is OpenSearch's: 1.1 x (4d + 8m) bytes per vector and copy for fp32, 1.1 x (d + 8m) for
int8 (docs/SCALING.md)."""

from __future__ import annotations

from typing import Any

from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.config import Settings

from .corpus import CONTEXT
from .progress import say

GRAPH, FLOAT, QUANTIZED = "vex", "vec", "veq"


def estimate_bytes(count: int, dimension: int, m: int, encoding: str) -> float:
    """OpenSearch's HNSW estimate for ``count`` vectors, one copy."""
    per_dimension = 1 if encoding == "int8" else 4
    return 1.1 * (per_dimension * dimension + 8 * m) * count


def measure(settings: Settings) -> dict[str, Any]:
    say("vectors: segment file sizes and k-NN stats")  # summed over segments: no merge forced
    client = build_client(settings)
    try:
        alias = IndexLayout.of(settings).alias(CONTEXT)
        stats = client.indices.stats(
            index=alias, metric="segments,docs,store", include_segment_file_sizes=True
        )
        knn = client.transport.perform_request("GET", "/_plugins/_knn/stats")
    finally:
        client.close()
    primaries = stats["_all"]["primaries"]
    files = {name: size["size_in_bytes"] for name, size in primaries["segments"]["file_sizes"].items()}
    count = primaries["docs"]["count"]
    searched = files.get(GRAPH, 0) + files.get(QUANTIZED, files.get(FLOAT, 0))
    encoding = settings.opensearch_vector_encoding
    return {
        "encoding": encoding,
        "m": settings.opensearch_knn_m,
        "ef_construction": settings.opensearch_knn_ef_construction,
        "documents": count,
        "store_bytes": primaries["store"]["size_in_bytes"],
        "file_bytes": {kind: files.get(kind, 0) for kind in (GRAPH, FLOAT, QUANTIZED)},
        "searched_bytes": searched,
        "estimate_bytes": estimate_bytes(
            count, settings.embedding_dimension, settings.opensearch_knn_m, encoding
        ),
        "knn_graph_memory_kb": sum(node.get("graph_memory_usage", 0) for node in knn["nodes"].values()),
    }
