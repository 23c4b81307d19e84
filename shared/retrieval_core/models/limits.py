"""The bounds requests are clamped to. Out-of-range values are clamped, not rejected, and every
response reports the values it applied."""

from __future__ import annotations

TOP_K_RANGE = (1, 100)
DEPTH_RANGE = (1, 5)
PATHS_RANGE = (1, 5)


def clamp(value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return max(low, min(high, value))
