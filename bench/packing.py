"""A micro-benchmark the bench suite imports: how fast 100 hits pack into a 2,000-token budget."""

from __future__ import annotations

import time

from retrieval_core.models.hits import Hit
from retrieval_core.models.vocabulary import Kind, Status
from retrieval_core.packing.counting import token_counter
from retrieval_core.packing.options import PackOptions
from retrieval_core.packing.packer import pack_hits

_WORDS = [
    "retrieval",
    "context",
    "budget",
    "lineage",
    "entity",
    "vector",
    "lexical",
    "hybrid",
    "citation",
    "source",
    "packet",
    "graph",
]


def _sample_hits(count: int) -> list[Hit]:
    """Deterministic hits of 3 to 8 sentences (roughly 40 to 140 tokens each), best first."""
    hits = []
    for n in range(count):
        sentences = [
            " ".join(_WORDS[(n + s + w) % len(_WORDS)] for w in range(6 + (n * s) % 9)).capitalize() + "."
            for s in range(3 + n % 6)
        ]
        hits.append(
            Hit(
                id=f"bench:item-{n}",
                kind=Kind.DOCUMENT,
                text=" ".join(sentences),
                score=1.0 / (n + 1),
                status=Status.ACTIVE,
                created_at="2025-01-01T00:00:00Z",
            )
        )
    return hits


def bench_packing(
    n_hits: int = 100, max_tokens: int = 2000, repeats: int = 5, compress: bool = False
) -> float:
    """Hits packed per second (best of ``repeats``), the tokenizer already loaded."""
    hits = _sample_hits(n_hits)
    source_ids = {hit.id: f"S{n + 1}" for n, hit in enumerate(hits)}
    options = PackOptions(max_tokens=max_tokens, compress=compress)
    token_counter()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        pack_hits(hits, source_ids, options, "hybrid retrieval with citations")
        best = min(best, time.perf_counter() - started)
    return n_hits / best
