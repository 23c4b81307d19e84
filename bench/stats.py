"""Percentiles and the medians-over-rounds the report is built from."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True, slots=True)
class Latency:
    """Milliseconds: percentiles over all samples of one measurement (every round pooled)."""

    p50: float
    p95: float
    p99: float
    samples: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000 for s in seconds]
        return cls(percentile(ms, 50), percentile(ms, 95), percentile(ms, 99), len(ms))

    def as_dict(self) -> dict[str, float]:
        return {"p50_ms": self.p50, "p95_ms": self.p95, "p99_ms": self.p99, "samples": self.samples}


def median_ratio(numerators: Sequence[Sequence[float]], denominators: Sequence[Sequence[float]]) -> float:
    """The median over rounds of (median of the numerator's round) / (median of the denominator's round).

    Both sides of a round ran interleaved, so the machine's noise hits them alike and cancels in the ratio.
    """
    ratios = [
        statistics.median(top) / statistics.median(bottom)
        for top, bottom in zip(numerators, denominators, strict=True)
    ]
    return statistics.median(ratios)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)
