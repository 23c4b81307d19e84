"""The evaluation's outputs: a table per run (one row per mode, nDCG@10 first) and a JSON record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .compare import Configuration, randomisation_p
from .runner import MRR_AT, NDCG_AT, RECALL_AT, ModeResult

NDCG = f"ndcg@{NDCG_AT}"
COLUMNS = (
    (NDCG, f"nDCG@{NDCG_AT}", "{:.3f}"),
    (f"recall@{RECALL_AT}", f"R@{RECALL_AT}", "{:.3f}"),
    (f"mrr@{MRR_AT}", f"MRR@{MRR_AT}", "{:.3f}"),
    ("recall@2", "R@2", "{:.3f}"),
    ("recall@5", "R@5", "{:.3f}"),
    ("all_found@5", "all@5", "{:.3f}"),
    ("hit_recall@5", "R@5 hits", "{:.3f}"),
    ("latency_ms_p50", "p50 ms", "{:.1f}"),
    ("latency_ms_p95", "p95 ms", "{:.1f}"),
    ("latency_ms_mean", "mean ms", "{:.1f}"),
)
COMPARISON_COLUMNS = (
    *COLUMNS[:9],
    ("round_trips_mean", "round trips", "{:.1f}"),
)


def table(results: Sequence[ModeResult]) -> str:
    """A Markdown table, so the same text reads well in a terminal and pastes into the README."""
    header = ["mode", *(label for _, label, _ in COLUMNS)]
    rows = [header, ["---"] * len(header)]
    for result in results:
        summary = result.summary()
        rows.append([result.mode, *(_cell(summary[key], fmt) for key, _, fmt in COLUMNS)])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def comparison(results: Mapping[str, ModeResult], configurations: Sequence[Configuration]) -> str:
    """One row per configuration, with its nDCG@10 change against its baseline and the paired
    randomisation test's p-value for that change."""
    header = ["configuration", *(label for _, label, _ in COMPARISON_COLUMNS), "vs baseline", "p"]
    rows = [header, ["---"] * len(header)]
    for configuration in configurations:
        result = results.get(configuration.name)
        if result is None:
            continue
        summary = result.summary()
        cells = [configuration.name, *(_cell(summary[key], fmt) for key, _, fmt in COMPARISON_COLUMNS)]
        baseline = results.get(configuration.baseline or "")
        if baseline is None:
            cells += ["baseline", ""]
        else:
            ours, theirs = _paired(result, baseline)
            delta = (sum(ours) - sum(theirs)) / len(ours) if ours else 0.0
            cells += [f"{delta:+.3f}", f"{randomisation_p(ours, theirs):.3f}"]
        rows.append(cells)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _paired(ours: ModeResult, theirs: ModeResult) -> tuple[list[float], list[float]]:
    """Per-query nDCG@10 of both, over the queries both scored."""
    shared = [q for q, s in ours.scores.items() if s.ndcg is not None and q in theirs.scores]
    return (
        [float(ours.scores[q].ndcg or 0.0) for q in shared],
        [float(theirs.scores[q].ndcg or 0.0) for q in shared],
    )


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
