"""The index mapping: every vector field uses lucene HNSW explicitly (the local node has no native
k-NN engines, and lucene is what gives efficient filtering), and text fields use the chosen analyzer."""

from __future__ import annotations

from typing import Any

from retrieval_core.adapters.opensearch.index import index_body


def vector_fields(properties: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    found = {}
    for name, spec in properties.items():
        if spec.get("type") == "knn_vector":
            found[prefix + name] = spec
        found |= vector_fields(spec.get("properties", {}), f"{prefix}{name}.")
    return found


def test_every_knn_vector_names_the_lucene_engine_and_the_index_enables_knn() -> None:
    body = index_body(384, shards=1, replicas=0, refresh_interval="1s")
    assert body["settings"]["index"]["knn"] is True
    vectors = vector_fields(body["mappings"]["properties"])
    assert vectors, "the index must have a vector field"
    for name, spec in vectors.items():
        method = spec.get("method")
        assert method is not None, f"{name}: no method, OpenSearch would fall back to its default engine"
        assert (method["name"], method["engine"]) == ("hnsw", "lucene"), name
        assert method["space_type"] == "cosinesimil"
        assert spec["dimension"] == 384


def test_mappings_are_strict_and_routing_is_required() -> None:
    mappings = index_body(8, shards=1, replicas=0, refresh_interval="1s")["mappings"]
    assert mappings["dynamic"] == "strict"
    assert mappings["_routing"] == {"required": True}
    for keyword in ("context_id", "kind", "status", "entity_ids"):
        assert mappings["properties"][keyword]["type"] == "keyword"
