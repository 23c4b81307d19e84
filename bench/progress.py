"""Progress lines on stderr while the bench runs (stdout carries only the report)."""

from __future__ import annotations

import sys
import time

_STARTED = time.monotonic()
_STREAM = sys.stderr
"""Bound at import: while measuring, the bench sends the handlers' own stdout/stderr (metrics lines) away."""


def say(message: str) -> None:
    print(f"[bench {time.monotonic() - _STARTED:6.1f}s] {message}", file=_STREAM, flush=True)


class Counter:
    """``advance()`` progress for the loader, printed at most every ``every`` seconds as a bar with the
    rate so far and the time left at that rate (a million items load for many minutes)."""

    def __init__(self, total: int, label: str, every: float = 5.0) -> None:
        self._total = total
        self._label = label
        self._every = every
        self._done = 0
        self._last = 0.0
        self._started = time.monotonic()

    def advance(self, count: int) -> None:
        self._done += count
        now = time.monotonic()
        if now - self._last >= self._every or self._done >= self._total:
            self._last = now
            say(f"{self._label}: {bar(self._done, self._total, now - self._started)}")


def bar(done: int, total: int, elapsed: float, width: int = 24) -> str:
    """``[######----] 41% 410,000/1,000,000 5,210/s, 1m53s left``."""
    share = min(1.0, done / total) if total else 1.0
    filled = round(share * width)
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else float("inf")
    eta = "?" if left == float("inf") else f"{int(left // 60)}m{int(left % 60):02d}s"
    return (
        f"[{'#' * filled}{'-' * (width - filled)}] {share:4.0%} {done:,}/{total:,} {rate:,.0f}/s, {eta} left"
    )
