"""Section 8: do per-context indices (silo) change latency against one shared index (pool) at the same
total corpus size?

The loaded corpus (vectors included, so nothing is embedded again) is copied twice, its items dealt
round-robin to ``TENANTS`` contexts: once into one index per context, once into one shared index. The
same queries then run through the product's ``OpenSearchStore`` in each layout, each query asked of one
tenant, both sides back to back in a rotating order; the ratio is the median over rounds of silo p50 /
pool p50.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.adapters.opensearch.index import ContextIndices, IndexSpec
from retrieval_core.adapters.opensearch.migration import copy_documents, scan_documents
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.config import IsolationModel, Settings
from retrieval_core.ports import SearchFilters
from retrieval_core.retrieval.config import preset

from .corpus import Corpus
from .progress import say
from .retrieve import MODES, TOP_K, Query, build_queries
from .stats import Latency, median_ratio

TENANTS = 10
MODELS: tuple[IsolationModel, ...] = ("silo", "pool")


def tenant(number: int) -> str:
    return f"tenant-{number % TENANTS:02d}"


def measure(settings: Settings, corpus: Corpus) -> dict[str, Any]:
    client = build_client(settings)
    try:
        stores = {model: _copy(client, settings, model) for model in MODELS}
        say(f"isolation: copied {len(corpus.items):,} items to {TENANTS} contexts, per-context and shared")
        all_queries = build_queries(corpus, corpus.scale.queries)
        results: dict[str, Any] = {
            "tenants": TENANTS,
            "items": len(corpus.items),
            "indices": {"silo": TENANTS, "pool": 1},
            "primary_shards": {
                "silo": TENANTS * settings.opensearch_shards,
                "pool": settings.opensearch_shards,
            },
        }
        for mode in MODES:
            results[mode] = _compare(mode, stores, all_queries, corpus.scale.rounds)
        return results
    finally:
        client.close()


def _copy(client: Any, settings: Settings, model: IsolationModel) -> OpenSearchStore:
    """The workspace's documents, dealt to ``TENANTS`` contexts, written in ``model``'s layout."""
    layout = IndexLayout(f"{settings.opensearch_alias}-{model}", model)
    target = ContextIndices(client, layout, IndexSpec.of(settings, settings.embedding_dimension))
    documents = scan_documents(client, IndexLayout.of(settings).alias_pattern)
    copy_documents((_dealt(n, doc) for n, doc in enumerate(documents)), target)
    return OpenSearchStore(client, layout, timeout=settings.opensearch_timeout_seconds)


def _dealt(number: int, document: dict[str, Any]) -> dict[str, Any]:
    context_id = tenant(number)
    return {**document, "context_id": context_id, "id": f"{context_id}:{document['id'].split(':', 1)[1]}"}


def _compare(
    mode: str, stores: dict[IsolationModel, OpenSearchStore], all_queries: list[Query], rounds: int
) -> dict[str, Any]:
    filters = SearchFilters(size=TOP_K)
    depth = max(preset("default").fusion.candidate_depth, TOP_K)

    def ask(store: OpenSearchStore, number: int, query: Query) -> float:
        context_id = tenant(number)
        started = time.perf_counter()
        if mode == "lexical":
            store.lexical(context_id, query.text, filters)
        elif mode == "vector":
            store.vector(context_id, query.vector, filters)
        else:
            store.hybrid(context_id, query.text, query.vector, filters, depth)
        return time.perf_counter() - started

    sides: dict[str, Callable[[int, Query], float]] = {model: partial(ask, s) for model, s in stores.items()}
    for number, query in enumerate(all_queries[:10]):
        for warm_up in sides.values():
            warm_up(number, query)
    order = list(sides)
    samples: dict[str, list[list[float]]] = {name: [] for name in sides}
    for round_number in range(rounds):
        say(f"isolation {mode}: round {round_number + 1}/{rounds}")
        for name in sides:
            samples[name].append([])
        for number, query in enumerate(all_queries):
            shift = number % len(order)
            for name in order[shift:] + order[:shift]:
                samples[name][-1].append(sides[name](number, query))
    return {
        "silo": Latency.of([s for run in samples["silo"] for s in run]).as_dict(),
        "pool": Latency.of([s for run in samples["pool"] for s in run]).as_dict(),
        "silo_over_pool_p50": median_ratio(samples["silo"], samples["pool"]),
    }
