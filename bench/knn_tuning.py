"""The k-NN parameters a user tunes, measured on the loaded corpus (issue 51; ``make bench SCALE=large
ONLY=knn``): ``ef_search`` (read by every query: the same index searched under each value) and ``m`` with
``ef_construction`` (the graph's links and build beam: the index rebuilt under each pair by the product's
rebuild, as ``retrieval rebuild`` applies them). For each: filtered recall@10 against exact search and
the handler's p50 at the ``filtered`` section's selectivities, and for each graph its rebuild time and
the graph file's size. Runs after the sections that read the loaded index (it moves the alias).

Above ``REBUILD_MAX_ITEMS`` only ``ef_search`` is swept and the graph is the loaded one: at ``xlarge`` each
rebuild copies a million documents into a new HNSW graph (most of an hour of this machine's two cores,
4.6x that for m = 32), and ``make bench SCALE=large ONLY=knn`` measures what m and ef_construction do."""

from __future__ import annotations

from typing import Any

from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.config import Settings

from . import vectors
from .corpus import CONTEXT, Corpus
from .filtered import MAX_QUERIES, ExactTruth, bucket_filter, measured, selectivity_label
from .progress import say
from .quantized import rebuilt
from .retrieve import build_queries

EF_SEARCH = (16, 50, 100, 200, 400, 800)
OTHER_GRAPHS = ((8, 64), (32, 256))
"""(m, ef_construction) pairs beside the loaded index's own (the defaults: 16, 128)."""
SELECTIVITIES = (None, 10, 50)
REBUILD_MAX_ITEMS = 100_000
"""The largest corpus whose index is rebuilt under ``OTHER_GRAPHS`` (``large``); above it only the loaded
graph is measured."""


def measure(settings: Settings, corpus: Corpus, truth: ExactTruth | None = None) -> dict[str, Any]:
    query_vectors = [q.vector for q in build_queries(corpus, min(corpus.scale.queries, MAX_QUERIES))]
    wheres = {selectivity_label(p): None if p is None else bucket_filter(p) for p in SELECTIVITIES}
    exact = exact_tops(settings, query_vectors, wheres, truth or ExactTruth())
    ef_search = {
        ef: searched(settings, {"opensearch_knn_ef_search": ef}, query_vectors, wheres, exact)
        for ef in EF_SEARCH
    }
    loaded = (settings.opensearch_knn_m, settings.opensearch_knn_ef_construction)
    rebuilds = len(corpus.items) <= REBUILD_MAX_ITEMS
    others = [pair for pair in OTHER_GRAPHS if pair != loaded] if rebuilds else []
    graphs = [
        _graph(settings, m, efc, query_vectors, wheres, exact, first=i == 0)
        for i, (m, efc) in enumerate([loaded, *others])
    ]
    found: dict[str, Any] = {"queries": len(query_vectors), "ef_search": ef_search, "graphs": graphs}
    if not rebuilds:
        found["rebuilds_skipped"] = f"{len(corpus.items):,} items: more than {REBUILD_MAX_ITEMS:,}"
    return found


def exact_tops(
    settings: Settings,
    query_vectors: list[list[float]],
    wheres: dict[str, dict[str, Any] | None],
    truth: ExactTruth,
) -> dict[str, list[list[str]]]:
    """Exact search's top 10 for each query under each of ``wheres`` (asked of ``truth``)."""
    client = build_client(settings)
    alias = IndexLayout.of(settings).alias(CONTEXT)
    try:
        say("knn: exact top 10 per selectivity")
        return {
            label: [truth.top(client, alias, v, where) for v in query_vectors]
            for label, where in wheres.items()
        }
    finally:
        client.close()


def searched(
    settings: Settings,
    update: dict[str, Any],
    query_vectors: list[list[float]],
    wheres: dict[str, dict[str, Any] | None],
    truth: dict[str, list[list[str]]],
) -> dict[str, Any]:
    """Recall@10 and p50 per selectivity with handlers built from ``settings`` changed by ``update``."""
    say(f"knn: searching with {update}")
    with bootstrap.use(bootstrap.Container(settings.model_copy(update=update))):
        found = {
            label: measured(query_vectors, truth[label], where, feedback=False)
            for label, where in wheres.items()
        }
    return {
        label: {"recall_at_10": round(f["recall_at_10"], 4), "p50_ms": f["handler"]["p50_ms"]}
        for label, f in found.items()
    }


def _graph(
    settings: Settings,
    m: int,
    ef_construction: int,
    query_vectors: list[list[float]],
    wheres: dict[str, dict[str, Any] | None],
    truth: dict[str, list[list[str]]],
    *,
    first: bool,
) -> dict[str, Any]:
    """The index under (``m``, ``ef_construction``): rebuilt into them unless it is the loaded one."""
    update = {"opensearch_knn_m": m, "opensearch_knn_ef_construction": ef_construction}
    graph = settings.model_copy(update=update)
    seconds = None
    if not first:
        say(f"knn: rebuilding with m = {m}, ef_construction = {ef_construction}")
        seconds = round(rebuilt(graph)[1], 1)
    files = vectors.measure(graph)
    return {
        "m": m,
        "ef_construction": ef_construction,
        "rebuild_seconds": seconds,
        "graph_bytes": files["file_bytes"][vectors.GRAPH],
        "searched": searched(settings, update, query_vectors, wheres, truth),
    }
