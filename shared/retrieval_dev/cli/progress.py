"""Load progress for `retrieval load` (a ``loading.loader.LoadProgress``): a bar on a terminal, plain
counts elsewhere (CI logs, pipes). Development code: the Lambda layer draws no bars."""

from __future__ import annotations

import sys
from typing import BinaryIO, TextIO

from retrieval_core.loading.lines import CHUNK_BYTES


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


def count_lines(stream: BinaryIO) -> int:
    """How many lines ``read_lines`` will yield for the same content (the bar's total)."""
    count, last = 0, b"\n"
    while chunk := stream.read(CHUNK_BYTES):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")
