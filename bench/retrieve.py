"""Sections 1 and 2: retrieve per mode through the real handler against the same query sent with
opensearch-py, and the one-``_msearch`` hybrid against a naive client's two sequential searches.

Vector and hybrid requests carry a precomputed ``vector``, so the handler and the baselines do the same
work (no embedding on either side). The sides of each query run back to back in a rotating order, so
the machine's noise falls on all of them alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from retrieval_core.adapters.opensearch import queries
from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.config import Settings
from retrieval_core.ports import SearchFilters
from retrieval_core.retrieval.config import preset

from .corpus import CONTEXT, Corpus, query_texts, synthetic_query_vectors
from .handlers import retrieve_event, timed_call
from .probes import Cost, Probe, install
from .progress import say
from .stats import Latency, median, median_ratio
from .units import Ledger, units

TOP_K = 10
WARMUP = 10
MODES = ("lexical", "vector", "hybrid")
MEASURED = (*MODES, "auto")
"""Retrieve's section also measures auto: its raw side is hybrid's one ``_msearch`` (the round trip
that carries auto's dictionary lookup), so its overhead shows what reading the question costs."""


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    vector: list[float]


def build_queries(corpus: Corpus, count: int) -> list[Query]:
    """Distinct texts; vectors embedded once with the local model, or synthetic beside synthetic items."""
    texts = query_texts(corpus, count)
    if corpus.scale.real_embeddings:
        from retrieval_core.embedding.factory import embedder_from_settings

        vectors = embedder_from_settings(Settings()).embed(texts)
    else:
        vectors = synthetic_query_vectors(corpus, count)
    return [
        Query(text, [round(float(v), 6) for v in vector]) for text, vector in zip(texts, vectors, strict=True)
    ]


def request_body(mode: str, query: Query) -> dict[str, Any]:
    # One pass, like the raw baselines it is compared with, whatever the deployment's preset says:
    # feedback would add its first-pass search; docs/QUALITY.md measures what that costs.
    body: dict[str, Any] = {"mode": mode, "top_k": TOP_K, "feedback": {"enabled": False}}
    if mode in ("lexical", "hybrid", "auto"):
        body["text"] = query.text
    if mode in ("vector", "hybrid", "auto"):
        body["vector"] = query.vector
    return body


class RawClient:
    """The baselines: the handler's query bodies sent straight through opensearch-py."""

    def __init__(self, settings: Settings, context_id: str = CONTEXT) -> None:
        self._client = build_client(settings)
        self._context = context_id
        self._alias = IndexLayout.of(settings).alias(context_id)
        self._filters = SearchFilters(size=TOP_K)
        self._depth = max(preset("default").fusion.candidate_depth, TOP_K)
        self._rank_constant = settings.rrf_rank_constant

    def search(self, mode: str, query: Query) -> Any:
        if mode == "lexical":
            return self._search(queries.lexical_body(self._context, query.text, self._filters, TOP_K))
        if mode == "vector":
            return self._search(queries.knn_body(self._context, query.vector, self._filters, TOP_K))
        return self.msearch(query)

    def msearch(self, query: Query) -> Any:
        """What the store's hybrid sends: both arms, ``depth`` candidates each, in one ``_msearch``."""
        header = {"routing": self._context, "ignore_unavailable": True}
        lines = [
            header,
            queries.lexical_body(self._context, query.text, self._filters, self._depth),
            header,
            queries.knn_body(self._context, query.vector, self._filters, self._depth),
        ]
        payload = "".join(json.dumps(line) + "\n" for line in lines)
        return self._client.msearch(index=self._alias, body=payload)

    def naive_hybrid(self, query: Query) -> list[str]:
        """Two sequential searches, fused on the client by reciprocal rank: what a caller would write."""
        lexical = self._search(queries.lexical_body(self._context, query.text, self._filters, self._depth))
        vector = self._search(queries.knn_body(self._context, query.vector, self._filters, self._depth))
        scores: dict[str, float] = {}
        for response in (lexical, vector):
            for rank, hit in enumerate(response["hits"]["hits"], start=1):
                scores[hit["_id"]] = scores.get(hit["_id"], 0.0) + 1 / (self._rank_constant + rank)
        return sorted(scores, key=lambda hit_id: (-scores[hit_id], hit_id))[:TOP_K]

    def _search(self, body: dict[str, Any]) -> Any:
        return self._client.search(
            index=self._alias, body=body, routing=self._context, ignore_unavailable=True
        )

    def close(self) -> None:
        self._client.close()


def measure(settings: Settings, corpus: Corpus, probe: Probe) -> dict[str, Any]:
    scale = corpus.scale
    say(f"retrieve: preparing {scale.queries} queries")
    all_queries = build_queries(corpus, scale.queries)
    raw = RawClient(settings)
    results: dict[str, Any] = {}
    try:
        for mode in MEASURED:
            results[mode], naive = _measure_mode(mode, all_queries, raw, probe, scale.rounds)
            if naive:
                results["hybrid_vs_naive"] = naive
    finally:
        raw.close()
    return results


def _measure_mode(
    mode: str, all_queries: list[Query], raw: RawClient, probe: Probe, rounds: int
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The handler against the raw query (and, for hybrid, the naive client), interleaved per query."""
    for query in all_queries[:WARMUP]:
        timed_call("retrieve", retrieve_event(request_body(mode, query)))
        raw.search(mode, query)
        raw.naive_hybrid(query)
    install(probe)
    probe.take()
    handler = _HandlerSide(mode, probe)
    sides: dict[str, Callable[[Query], float]] = {
        "handler": handler,
        "baseline": partial(_timed, partial(raw.search, mode)),
    }
    if mode == "hybrid":
        sides["naive"] = partial(_timed, raw.naive_hybrid)
    order = list(sides)
    samples: dict[str, list[list[float]]] = {side: [] for side in sides}
    for round_number in range(rounds):
        say(f"retrieve {mode}: round {round_number + 1}/{rounds}")
        for side in sides:
            samples[side].append([])
        for n, query in enumerate(all_queries):
            shift = n % len(order)
            for side in order[shift:] + order[:shift]:
                samples[side][-1].append(sides[side](query))
    pooled = {side: [s for run in runs for s in run] for side, runs in samples.items()}
    result = {
        "handler": Latency.of(pooled["handler"]).as_dict(),
        "baseline": Latency.of(pooled["baseline"]).as_dict(),
        "overhead_p50": median_ratio(samples["handler"], samples["baseline"]),
        "queries_with_hits": sum(1 for h in handler.hits if h) / len(handler.hits),
        "opensearch_calls": median([c.opensearch for c in handler.costs]),
        "dynamodb_calls": median([c.dynamodb_calls for c in handler.costs]),
        "write_units": median(handler.write_units),
        "read_units": median(handler.read_units),
    }
    if mode != "hybrid":
        return result, None
    naive = {
        "naive": Latency.of(pooled["naive"]).as_dict(),
        "handler_over_naive_p50": median_ratio(samples["handler"], samples["naive"]),
        "msearch_over_naive_p50": median_ratio(samples["baseline"], samples["naive"]),
    }
    return result, naive


def _timed(action: Callable[[Query], Any], query: Query) -> float:
    started = time.perf_counter()
    action(query)
    return time.perf_counter() - started


class _HandlerSide:
    """Calls the handler for one mode; keeps each call's backend cost, DynamoDB units and hit count."""

    def __init__(self, mode: str, probe: Probe) -> None:
        self._mode = mode
        self._probe = probe
        self._ledger = Ledger()
        self._ledger.watch_container()
        self.costs: list[Cost] = []
        self.write_units: list[float] = []
        self.read_units: list[float] = []
        self.hits: list[int] = []

    def __call__(self, query: Query) -> float:
        elapsed, body = timed_call("retrieve", retrieve_event(request_body(self._mode, query)))
        self.costs.append(self._probe.take())
        written, read = units(self._ledger.take(), reader=None)
        self.write_units.append(written)
        self.read_units.append(read)
        self.hits.append(len(body["hits"]))
        return elapsed
