"""What one ``flat_object`` field would cost the pool model's metadata filters (docs/STORAGE.md, "Pool
fairness"): the same documents indexed twice on the stack's node, undeclared metadata as keyword fields
(today's mapping: one field per key) and as one ``flat_object`` field, then an exact match and a prefix
match on one key, each as a filter beside a match-all, timed by OpenSearch's own ``took`` (median of
``RUNS``) and by the number of mapped fields each index ends with.

Run: ``python -m bench.flat_object`` with the stack up (``make up``). Opt-in only, never in ``make test``.
"""

from __future__ import annotations

import random
import statistics
import sys
import uuid
from typing import Any

DOCS = 20_000
KEYS = 400
KEYS_PER_DOC = 6
VALUES = 50
RUNS = 60


def documents(seed: int = 7) -> list[dict[str, str]]:
    pick = random.Random(seed)
    return [
        {
            f"k{pick.randrange(KEYS)}": f"v{pick.randrange(VALUES)}-{pick.randrange(4)}"
            for _ in range(KEYS_PER_DOC)
        }
        for _ in range(DOCS)
    ]


def mappings(flat: bool) -> dict[str, Any]:
    if flat:
        return {"properties": {"context_id": {"type": "keyword"}, "metadata": {"type": "flat_object"}}}
    return {
        "dynamic_templates": [{"metadata": {"path_match": "metadata.*", "mapping": {"type": "keyword"}}}],
        "properties": {"context_id": {"type": "keyword"}},
    }


def build(client: Any, name: str, flat: bool, docs: list[dict[str, str]]) -> None:
    client.indices.create(
        index=name,
        body={
            "settings": {
                "number_of_shards": 1,
                "number_of_replicas": 0,
                "mapping.total_fields.limit": 10_000,
            },
            "mappings": mappings(flat),
        },
    )
    for start in range(0, len(docs), 2000):
        body: list[dict[str, Any]] = []
        for doc in docs[start : start + 2000]:
            body += [{"index": {"_index": name}}, {"context_id": "acme", "metadata": doc}]
        client.bulk(body=body)
    client.indices.refresh(index=name)
    client.indices.forcemerge(index=name, max_num_segments=1)


def median_took(client: Any, name: str, condition: dict[str, Any]) -> float:
    query = {"bool": {"must": [{"match_all": {}}], "filter": [{"term": {"context_id": "acme"}}, condition]}}
    client.search(index=name, body={"query": query, "size": 10})  # warm
    took = [
        client.search(index=name, body={"query": query, "size": 10}, request_cache=False)["took"]
        for _ in range(RUNS)
    ]
    return float(statistics.median(took))


def field_count(client: Any, name: str) -> int:
    properties = client.indices.get_mapping(index=name)[name]["mappings"]["properties"]
    meta = properties["metadata"]
    return 1 + len(meta.get("properties", {})) if "properties" in meta else 1


def main() -> int:
    from opensearchpy import OpenSearch
    from retrieval_dev.cli.environment import local_settings

    client = OpenSearch(hosts=[local_settings().opensearch_endpoint], timeout=120)
    docs = documents()
    prefix = f"bench-flat-{uuid.uuid4().hex[:6]}"
    try:
        rows = []
        for flat in (False, True):
            name = f"{prefix}-{'flat' if flat else 'keyword'}"
            build(client, name, flat, docs)
            exact = {"term": {"metadata.k7": "v3-1"}}
            starts = {"prefix": {"metadata.k7": "v3"}}
            hits = client.count(index=name, body={"query": {"bool": {"filter": [exact]}}})["count"]
            rows.append(
                (
                    name.rsplit("-", 1)[-1],
                    field_count(client, name),
                    median_took(client, name, exact),
                    median_took(client, name, starts),
                    hits,
                )
            )
        print(f"{DOCS} documents, {KEYS} keys, {KEYS_PER_DOC} per document; median took of {RUNS} (ms)")
        print("mapping   fields  exact  prefix  exact-hits")
        for mapping, fields, exact_ms, prefix_ms, hits in rows:
            print(f"{mapping:<9} {fields:>6}  {exact_ms:>5.1f}  {prefix_ms:>6.1f}  {hits:>10}")
    finally:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True, allow_no_indices=True)
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
