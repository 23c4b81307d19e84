"""Filtered k-NN: vector retrieve through the handler with a metadata filter that keeps 1%, 10% or 50% of
the context (``metadata.bucket``, declared a number), unfiltered beside it. Per selectivity: handler
latency, and recall@10 against exact filtered search (OpenSearch's exact ``knn_score`` script over the
same filter clauses), so approximate filtering is measured against the truth, not against itself.

The recall is the index's: measured with feedback off, so the handler searches the very vector the exact
search scores by. Feedback's effect is reported beside it (``with_feedback``): the same requests under
the deployment's preset (Rocchio moves the query vector towards its first pass's top hits), their
latency, and how many of exact search's top 10 for the original vector they still hold (a moved query
is meant to rank differently: that share is a description, not a target)."""

from __future__ import annotations

import json
from typing import Any

from retrieval_core.adapters.opensearch import queries
from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.adapters.opensearch.index import KNN_SPACE, VECTOR_FIELD
from retrieval_core.config import Settings
from retrieval_core.models.filters import Filter
from retrieval_core.ports import SearchFilters

from .corpus import BUCKETS, CONTEXT, Corpus
from .handlers import retrieve_event, timed_call
from .progress import say
from .retrieve import TOP_K, WARMUP, build_queries
from .stats import Latency

SELECTIVITIES = (None, 1, 10, 50)
"""Percent of the context the filter keeps; None is the unfiltered baseline."""
MAX_QUERIES = 100


def selectivity_label(percent: int | None) -> str:
    return "unfiltered" if percent is None else f"{percent}%"


def bucket_filter(percent: int) -> dict[str, Any]:
    return {"lt": {"key": "metadata.bucket", "value": percent * BUCKETS // 100}}


class ExactTruth:
    """Exact search's top 10 per (filter, query vector), asked once per run: the ``filtered``, ``knn``
    and ``int8`` sections score the same queries against the same loaded vectors (an int8 rebuild
    keeps the float vectors, and recall is meant against exact fp32 search), and at a million items each
    exact search reads every vector under its filter."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, tuple[float, ...]], list[str]] = {}

    def top(self, client: Any, alias: str, vector: list[float], where: dict[str, Any] | None) -> list[str]:
        key = (json.dumps(where, sort_keys=True), tuple(vector))
        if key not in self._found:
            self._found[key] = exact_top(client, alias, vector, where)
        return self._found[key]


def measure(settings: Settings, corpus: Corpus, truth: ExactTruth | None = None) -> dict[str, Any]:
    all_queries = build_queries(corpus, min(corpus.scale.queries, MAX_QUERIES))
    truth = truth or ExactTruth()
    client = build_client(settings)
    alias = IndexLayout.of(settings).alias(CONTEXT)
    results: dict[str, Any] = {}
    try:
        for percent in SELECTIVITIES:
            label = selectivity_label(percent)
            say(f"filtered k-NN: {label}")
            where = None if percent is None else bucket_filter(percent)
            exact = [truth.top(client, alias, query.vector, where) for query in all_queries]
            vectors = [query.vector for query in all_queries]
            index = measured(vectors, exact, where, feedback=False)
            moved = measured(vectors, exact, where, feedback=True)
            results[label] = {
                "percent": percent,
                "handler": index["handler"],
                "recall_at_10": index["recall_at_10"],
                "recall_at_10_min": index["recall_at_10_min"],
                "with_feedback": {
                    "handler": moved["handler"],
                    "exact_top_10_kept": moved["recall_at_10"],
                    "exact_top_10_kept_min": moved["recall_at_10_min"],
                },
            }
    finally:
        client.close()
    return results


def measured(
    vectors: list[list[float]], exact: list[list[str]], where: dict[str, Any] | None, *, feedback: bool
) -> dict[str, Any]:
    """Handler latency and the share of each query's exact top 10 its answer holds."""
    for vector in vectors[:WARMUP]:
        timed_call("retrieve", retrieve_event(_body(vector, where, feedback)))
    seconds, recalls = [], []
    for vector, truth in zip(vectors, exact, strict=True):
        elapsed, body = timed_call("retrieve", retrieve_event(_body(vector, where, feedback)))
        seconds.append(elapsed)
        found = {h["id"] for h in body["hits"]}
        recalls.append(len(found & set(truth)) / len(truth) if truth else 1.0)
    return {
        "handler": Latency.of(seconds).as_dict(),
        "recall_at_10": sum(recalls) / len(recalls),
        "recall_at_10_min": min(recalls),
    }


def _body(vector: list[float], where: dict[str, Any] | None, feedback: bool) -> dict[str, Any]:
    """A vector request; without ``feedback`` it says so (the preset may turn feedback on)."""
    body: dict[str, Any] = {"mode": "vector", "vector": vector, "top_k": TOP_K, "diversify": False}
    if not feedback:
        body["feedback"] = {"enabled": False}
    return body if where is None else body | {"filter": where}


def exact_top(client: Any, alias: str, vector: list[float], where: dict[str, Any] | None) -> list[str]:
    """The true top 10 under the same filter clauses the handler's query carries."""
    filters = SearchFilters(size=TOP_K, where=None if where is None else Filter.model_validate(where))
    body = {
        "size": TOP_K,
        "_source": False,
        "query": {
            "script_score": {
                "query": {"bool": {"filter": queries.filter_clauses(CONTEXT, filters)}},
                "script": {
                    "source": "knn_score",
                    "lang": "knn",
                    "params": {"field": VECTOR_FIELD, "query_value": vector, "space_type": KNN_SPACE},
                },
            }
        },
    }
    response = client.search(index=alias, body=body, routing=CONTEXT)
    return [hit["_id"] for hit in response["hits"]["hits"]]
