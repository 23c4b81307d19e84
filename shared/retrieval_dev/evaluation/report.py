"""The evaluation's outputs: a table per run (one row per mode, nDCG@10 first) and a JSON record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .runner import MRR_AT, NDCG_AT, RECALL_AT, ModeResult

NDCG = f"ndcg@{NDCG_AT}"
COLUMNS = (
    (NDCG, f"nDCG@{NDCG_AT}", "{:.3f}"),
    (f"recall@{RECALL_AT}", f"R@{RECALL_AT}", "{:.3f}"),
    (f"mrr@{MRR_AT}", f"MRR@{MRR_AT}", "{:.3f}"),
    ("latency_ms_p50", "p50 ms", "{:.1f}"),
    ("latency_ms_p95", "p95 ms", "{:.1f}"),
    ("latency_ms_mean", "mean ms", "{:.1f}"),
)


def table(results: Sequence[ModeResult]) -> str:
    """A Markdown table, so the same text reads well in a terminal and pastes into the README."""
    header = ["mode", *(label for _, label, _ in COLUMNS)]
    rows = [header, ["---"] * len(header)]
    for result in results:
        summary = result.summary()
        rows.append([result.mode, *(_cell(summary[key], fmt) for key, _, fmt in COLUMNS)])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def hybrid_gain(results: Sequence[ModeResult]) -> float | None:
    """Hybrid's relative nDCG gain over the better single mode (0.08 = +8%), when all three ran."""
    scores = {r.mode: r.summary()[NDCG] for r in results}
    best_single = max((scores.get("lexical") or 0.0, scores.get("vector") or 0.0))
    hybrid = scores.get("hybrid")
    if hybrid is None or not best_single:
        return None
    return float(hybrid) / best_single - 1


def record(
    results: Sequence[ModeResult], *, run: Mapping[str, Any], configuration: Mapping[str, Any]
) -> dict[str, Any]:
    """Everything needed to compare runs later: what ran, how it was configured, and every score."""
    return {
        "run": dict(run),
        "configuration": dict(configuration),
        "summary": {r.mode: r.summary() for r in results},
        "hybrid_gain_over_best_single": hybrid_gain(results),
        "per_query": {r.mode: {qid: vars(score) for qid, score in r.scores.items()} for r in results},
    }


def _cell(value: object, fmt: str) -> str:
    return "n/a" if value is None else fmt.format(value)
