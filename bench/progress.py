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
    """``advance()`` progress for the loader, printed at most every ``every`` seconds."""

    def __init__(self, total: int, label: str, every: float = 5.0) -> None:
        self._total = total
        self._label = label
        self._every = every
        self._done = 0
        self._last = 0.0

    def advance(self, count: int) -> None:
        self._done += count
        now = time.monotonic()
        if now - self._last >= self._every or self._done >= self._total:
            self._last = now
            say(f"{self._label}: {self._done}/{self._total}")
