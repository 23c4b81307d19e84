"""Paging: the cost of pages 2..10 against page 1 (``top_k`` 10), through the handler, per ranked mode the
bench corpus has queries for. Page 1 ranks 11 deep and writes nothing (one search, no DynamoDB call);
page 2 ranks again at depth 100 (hybrid: all it fused) without page 1's ids and freezes the rest (one
search, one DynamoDB put); pages 3..9 read the frozen ranking (one get) and the page's items (one
``ids`` search); page 10 reaches the end of a 100-deep frozen ranking and extends it to 200 (one get,
one search, one put)."""

from __future__ import annotations

from statistics import median
from typing import Any

from retrieval_core.config import Settings

from .corpus import Corpus
from .handlers import retrieve_event, timed_call
from .probes import Probe, install
from .progress import say
from .retrieve import WARMUP, build_queries, request_body
from .stats import Latency

MODES = ("lexical", "vector", "hybrid")
PAGES = 10
MAX_QUERIES = 30


def measure(settings: Settings, corpus: Corpus, probe: Probe) -> dict[str, Any]:
    if settings.paging_key is None and settings.paging_key_parameter is None:
        return {"skipped": "no paging key configured (RETRIEVAL_PAGING_KEY)"}
    queries = build_queries(corpus, min(corpus.scale.queries, MAX_QUERIES))
    results: dict[str, Any] = {}
    for mode in MODES:
        say(f"paging {mode}")
        for query in queries[:WARMUP]:
            _pages(request_body(mode, query), probe)
        install(probe)
        probe.take()
        by_page: dict[int, list[tuple[float, int, int]]] = {n: [] for n in range(1, PAGES + 1)}
        for query in queries:
            for number, sample in enumerate(_pages(request_body(mode, query), probe), start=1):
                by_page[number].append(sample)
        results[mode] = {
            str(number): {
                "handler": Latency.of([s[0] for s in samples]).as_dict(),
                "opensearch_calls": median([s[1] for s in samples]),
                "dynamodb_calls": median([s[2] for s in samples]),
                "requests": len(samples),
            }
            for number, samples in by_page.items()
            if samples
        }
    return results


def _pages(body: dict[str, Any], probe: Probe) -> list[tuple[float, int, int]]:
    """(seconds, OpenSearch calls, DynamoDB calls) of each page, following next_token up to PAGES."""
    samples = []
    token = None
    for _ in range(PAGES):
        elapsed, answer = timed_call(
            "retrieve", retrieve_event(body | ({"next_token": token} if token else {}))
        )
        cost = probe.take()
        samples.append((elapsed, cost.opensearch, cost.dynamodb_calls))
        token = answer["next_token"]
        if token is None:
            break
    return samples
