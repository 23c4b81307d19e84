"""fp32 against int8 from one load (issue 51): after the fp32 sections, the workspace's index is rebuilt
into int8 (Lucene's scalar quantizer, the ``sq`` encoder) by the product's rebuild, as ``retrieval
rebuild`` does with no downtime (the float vectors are read back from the index, nothing is embedded
again), and the ``filtered`` and ``vectors`` sections are measured again on it, with handlers built from
the int8 settings (so k-NN queries oversample and rescore as a deployment declaring int8 would). At a
million items a second load would take the better part of an hour; the rebuild stays inside OpenSearch.

Then recall@10 and p50 on the int8 index per ``ef_search`` (``EF_SEARCH``, read by every query: nothing
rebuilt) at every selectivity, against exact fp32 search, so the beam a scale needs is measured with the
encoding it runs.
"""

from __future__ import annotations

import time
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.lifecycle.rebuild import Switch

from . import filtered, vectors
from .corpus import CONTEXT, Corpus
from .progress import say

EF_SEARCH = (100, 200, 400, 800)


def rebuilt(settings: Settings) -> tuple[Switch, float]:
    """The workspace's index rebuilt under ``settings`` by the product's rebuild, and the seconds it took."""
    started = time.monotonic()
    (switch,) = bootstrap.Container(settings).rebuilder(say).rebuild(CONTEXT)
    return switch, time.monotonic() - started


def measure(settings: Settings, corpus: Corpus, truth: filtered.ExactTruth | None = None) -> dict[str, Any]:
    from . import knn_tuning
    from .retrieve import build_queries

    if settings.opensearch_vector_encoding == "int8":
        return {"skipped": "the index was loaded as int8 (--vectors int8): nothing to rebuild"}
    int8 = settings.model_copy(update={"opensearch_vector_encoding": "int8"})
    say(f"int8: rebuilding {len(corpus.items):,} documents with the sq encoder (inside OpenSearch)")
    switch, seconds = rebuilt(int8)
    say(f"int8: rebuilt in {seconds:,.0f} s ({switch.source} -> {switch.target})")
    truth = truth or filtered.ExactTruth()
    with bootstrap.use(bootstrap.Container(int8)):
        found = {
            "rebuild_seconds": round(seconds, 1),
            "documents": switch.documents,
            "reembedded": switch.reembedded,
            "ef_search_default": int8.opensearch_knn_ef_search,
            "filtered": filtered.measure(int8, corpus, truth),
            "vectors": vectors.measure(int8),
        }
    count = min(corpus.scale.queries, filtered.MAX_QUERIES)
    query_vectors = [q.vector for q in build_queries(corpus, count)]
    wheres = {
        filtered.selectivity_label(p): None if p is None else filtered.bucket_filter(p)
        for p in filtered.SELECTIVITIES
    }
    exact = knn_tuning.exact_tops(int8, query_vectors, wheres, truth)
    found["ef_search"] = {
        ef: knn_tuning.searched(int8, {"opensearch_knn_ef_search": ef}, query_vectors, wheres, exact)
        for ef in EF_SEARCH
    }
    return found
