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


def test_the_graph_is_built_as_declared_and_int8_names_lucenes_scalar_quantizer() -> None:
    from retrieval_core.adapters.opensearch.index import IndexSpec
    from retrieval_core.config import Settings

    fp32 = IndexSpec.of(Settings(), 384).body()["mappings"]["properties"]["embedding"]["method"]
    assert fp32["parameters"] == {"m": 16, "ef_construction": 128}  # no encoder: float vectors
    declared = Settings(
        opensearch_vector_encoding="int8", opensearch_knn_m=24, opensearch_knn_ef_construction=256
    )
    int8 = IndexSpec.of(declared, 384).body()["mappings"]["properties"]["embedding"]["method"]
    assert int8 == {
        "name": "hnsw",
        "engine": "lucene",
        "space_type": "cosinesimil",
        "parameters": {"m": 24, "ef_construction": 256, "encoder": {"name": "sq"}},
    }


def test_int8_queries_oversample_and_rescore_on_the_float_vectors_and_fp32_ones_do_not() -> None:
    from retrieval_core.adapters.opensearch.queries import knn_body
    from retrieval_core.config import Settings
    from retrieval_core.ports import SearchFilters

    assert Settings().knn_oversample == 1
    assert Settings(opensearch_vector_encoding="int8").knn_oversample == 2
    plain = knn_body("acme", [0.1, 0.2], SearchFilters(size=10), 10, ef_search=50)
    assert "rescore" not in plain
    assert plain["query"]["knn"]["embedding"]["k"] == 10
    assert plain["query"]["knn"]["embedding"]["method_parameters"] == {"ef_search": 50}
    body = knn_body("acme", [0.1, 0.2], SearchFilters(size=10), 10, oversample=3)
    assert (body["size"], body["query"]["knn"]["embedding"]["k"]) == (10, 30)
    assert body["query"]["knn"]["embedding"]["method_parameters"] == {"ef_search": 100}
    assert body["rescore"]["window_size"] == 30
    rescore = body["rescore"]["query"]
    assert (rescore["query_weight"], rescore["rescore_query_weight"]) == (0.0, 1.0)  # the exact score alone
    assert rescore["rescore_query"]["script_score"]["script"]["params"]["query_value"] == [0.1, 0.2]
