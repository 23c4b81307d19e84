"""fp32 against int8 from one load (issue 51): after the fp32 sections, the workspace's index is rebuilt
into int8 (Lucene's scalar quantizer, the ``sq`` encoder) by the product's rebuild, as ``retrieval
rebuild`` does with no downtime (the float vectors are read back from the index, nothing is embedded
again), and the ``filtered`` and ``vectors`` sections are measured again on it, with handlers built from
the int8 settings (so k-NN queries oversample and rescore as a deployment declaring int8 would). At a
million items a second load would take the better part of an hour; the rebuild stays inside OpenSearch.
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


def rebuilt(settings: Settings) -> tuple[Switch, float]:
    """The workspace's index rebuilt under ``settings`` by the product's rebuild, and the seconds it took."""
    started = time.monotonic()
    (switch,) = bootstrap.Container(settings).rebuilder(say).rebuild(CONTEXT)
    return switch, time.monotonic() - started


def measure(settings: Settings, corpus: Corpus) -> dict[str, Any]:
    if settings.opensearch_vector_encoding == "int8":
        return {"skipped": "the index was loaded as int8 (--vectors int8): nothing to rebuild"}
    int8 = settings.model_copy(update={"opensearch_vector_encoding": "int8"})
    say(f"int8: rebuilding {len(corpus.items):,} documents with the sq encoder (inside OpenSearch)")
    switch, seconds = rebuilt(int8)
    say(f"int8: rebuilt in {seconds:,.0f} s ({switch.source} -> {switch.target})")
    with bootstrap.use(bootstrap.Container(int8)):
        return {
            "rebuild_seconds": round(seconds, 1),
            "documents": switch.documents,
            "reembedded": switch.reembedded,
            "filtered": filtered.measure(int8, corpus),
            "vectors": vectors.measure(int8),
        }
