"""The bounds requests are clamped to. Out-of-range values are clamped, not rejected, and every
response reports the values it applied."""

from __future__ import annotations

TOP_K_RANGE = (1, 100)
DEPTH_RANGE = (1, 5)
PATHS_RANGE = (1, 5)
MAX_ITEM_ID_CHARS = 512
MAX_REQUEST_INT = 2**31 - 1
"""No integer a caller sends may exceed this: clamped fields accept anything up to it, and nothing
larger reaches a backend (DynamoDB numbers have 38 digits) or Python's integer-string limit."""


def clamp(value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return max(low, min(high, value))
