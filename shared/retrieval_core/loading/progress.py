"""Load progress: a bar on a terminal, plain counts elsewhere (CI logs, pipes)."""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    def __init__(self, total: int, *, stream: TextIO | None = None, label: str = "loading") -> None:
        self._stream = stream or sys.stderr
        self._total = max(total, 1)
        self._done = 0
        self._label = label
        self._tty = self._stream.isatty()

    def advance(self, count: int) -> None:
        self._done += count
        if self._tty:
            filled = int(30 * self._done / self._total)
            bar = "#" * filled + "-" * (30 - filled)
            self._stream.write(f"\r{self._label} [{bar}] {self._done}/{self._total}")
            if self._done >= self._total:
                self._stream.write("\n")
        else:
            self._stream.write(f"{self._label}: {self._done}/{self._total} lines\n")
        self._stream.flush()
