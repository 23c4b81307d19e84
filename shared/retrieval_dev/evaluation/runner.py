"""Run every query through the retrieve handler, as the deployed API would receive it, and score it.

Nothing is reimplemented: each query is an API Gateway event with authorizer claims, handled by
``functions/retrieve/app.py`` in-process, which embeds, searches, fuses and ranks exactly as in
production. Latency is the wall-clock time of each handler call, measured in the same run.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from typing import Any

from retrieval_core.errors import RetrievalError

from .collection import CONTEXT_ID, Query, doc_id_of
from .metrics import all_found, mean, ndcg, recall, reciprocal_rank

MODES = ("lexical", "vector", "hybrid")
"""The modes a run scores unless told otherwise; ``auto`` (``--modes ... auto``) too on request."""
MODE_CHOICES = (*MODES, "auto")
TOP_K = 100
NDCG_AT, RECALL_AT, MRR_AT = 10, 100, 10


class EvalQueryError(RetrievalError):
    """The handler refused or failed an evaluation query; the run stops rather than score a failure."""


@dataclass(frozen=True)
class QueryScore:
    ndcg: float | None
    recall: float | None
    reciprocal_rank: float | None
    recall_at_2: float | None = None
    """Passage recall at 2 and 5, as HippoRAG reports it for multi-hop questions: the share of the
    question's supporting passages in the top k (a passage's chunks counting once)."""
    recall_at_5: float | None = None
    all_found_at_5: float | None = None
    """1 when every supporting passage is in the top 5 (pages), else 0."""
    hit_at_1: float | None = None
    """1 when the first page ranked is relevant, else 0."""
    hit_recall_at_5: float | None = None
    """Recall in the first 5 *hits* as returned, a page's second chunk taking a place: what a caller
    asking for ``top_k`` 5 reads. The other scores rank pages (a page where its best chunk ranks)."""


@dataclass
class ModeResult:
    """One mode's per-query scores and per-call latencies (milliseconds)."""

    mode: str
    scores: dict[str, QueryScore] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    """OpenSearch requests per query (the embedder is local and not counted)."""

    def summary(self) -> dict[str, float | int | None]:
        """Means over the queries that have relevant documents, and latency percentiles."""
        scored = self.scores.values()
        return {
            f"ndcg@{NDCG_AT}": mean(s.ndcg for s in scored),
            f"recall@{RECALL_AT}": mean(s.recall for s in scored),
            f"mrr@{MRR_AT}": mean(s.reciprocal_rank for s in scored),
            "recall@2": mean(s.recall_at_2 for s in scored),
            "recall@5": mean(s.recall_at_5 for s in scored),
            "all_found@5": mean(s.all_found_at_5 for s in scored),
            "hit@1": mean(s.hit_at_1 for s in scored),
            "hit_recall@5": mean(s.hit_recall_at_5 for s in scored),
            "queries": len(self.scores),
            "unscored_queries": sum(s.ndcg is None for s in scored),
            "latency_ms_p50": percentile(self.latencies_ms, 50),
            "latency_ms_p95": percentile(self.latencies_ms, 95),
            "latency_ms_mean": mean(self.latencies_ms),
            "round_trips_mean": mean(self.round_trips),
        }


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least ``pct``% of values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil without floats drifting
    return ordered[int(rank) - 1]


def retrieve_hits(
    mode: str, text: str, top_k: int = TOP_K, options: Mapping[str, Any] | None = None
) -> list[str]:
    """The collection's document id of every hit the handler returns, in order: a document twice when
    two of its chunks are hits (the scores rank each document where its best chunk ranks; JSON Lines
    items are unique); ``options`` are further request fields (fusion, feedback, rerank)."""
    ids = (doc_id_of(hit["id"]) for hit in answered_hits(mode, text, top_k, options))
    return [doc_id for doc_id in ids if doc_id is not None]


def answered_hits(
    mode: str, text: str, top_k: int = TOP_K, options: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The hits the handler returns for one query in the collection's context, as JSON."""
    from ..cli.events import api_event
    from ..cli.lambda_runtime import invoke

    body = {**(options or {}), "mode": mode, "text": text, "top_k": top_k}
    # The handler prints a CloudWatch metrics line per call (to stderr under ``invoke``): hundreds would
    # bury the table, so its prints are dropped. Its logger keeps its own stream and still reports.
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        response = invoke("retrieve", api_event("POST", "/v1/retrieve", CONTEXT_ID, body=body))
    payload = json.loads(response["body"])
    if response["statusCode"] != 200:
        raise EvalQueryError(f"{mode} query failed with {response['statusCode']}: {payload}")
    if not payload.get("supported", True):
        raise EvalQueryError(f"{mode} is not supported here: {payload.get('missing_capability')}")
    hits: list[dict[str, Any]] = payload["hits"]
    return hits


def run_mode(
    mode: str,
    queries: Sequence[Query],
    qrels: Mapping[str, Mapping[str, int]],
    top_k: int = TOP_K,
    *,
    options: Mapping[str, Any] | None = None,
    label: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ModeResult:
    """Every query once, timed, with its OpenSearch round trips counted; one unmeasured warm-up call
    first so model loading and connection set-up are not charged to the first query."""
    runs = [Run(label or mode, mode, options or {})]
    return run_interleaved(runs, queries, qrels, top_k, progress=progress)[label or mode]


@dataclass(frozen=True)
class Run:
    """One way of asking: a mode and the request options sent with it."""

    label: str
    mode: str
    options: Mapping[str, Any] = field(default_factory=dict)


def run_interleaved(
    runs: Sequence[Run],
    queries: Sequence[Query],
    qrels: Mapping[str, Mapping[str, int]],
    top_k: int = TOP_K,
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, ModeResult]:
    """Every run on every query, query by query (the runs' order rotating from one query to the next),
    so a change of load on a shared machine weighs on every run alike and their latencies compare; one
    unmeasured warm-up call per run first."""
    from retrieval_core import bootstrap

    if queries:
        for run in runs:
            retrieve_hits(run.mode, queries[0].text, top_k, run.options)
    store = bootstrap.container().store
    results = {run.label: ModeResult(run.label) for run in runs}
    for number, query in enumerate(queries):
        judged = qrels.get(query.id, {})
        shift = number % len(runs) if runs else 0
        for run in [*runs[shift:], *runs[:shift]]:
            calls = store.backend_calls
            started = time.perf_counter()
            hits = retrieve_hits(run.mode, query.text, top_k, run.options)
            ranking = list(dict.fromkeys(hits))
            result = results[run.label]
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
            result.round_trips.append(store.backend_calls - calls)
            first = reciprocal_rank(ranking, judged, MRR_AT)
            result.scores[query.id] = QueryScore(
                ndcg=ndcg(ranking, judged, NDCG_AT),
                recall=recall(ranking, judged, RECALL_AT),
                reciprocal_rank=first,
                recall_at_2=recall(ranking, judged, 2),
                recall_at_5=recall(ranking, judged, 5),
                all_found_at_5=all_found(ranking, judged, 5),
                hit_recall_at_5=recall(hits[:5], judged, 5),
                hit_at_1=None if first is None else float(first == 1.0),
            )
        if progress is not None:
            progress((number + 1) * len(runs))
    return results
