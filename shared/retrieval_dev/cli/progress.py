"""Progress of long CLI work (`load`, `sync`, `ingest`, `eval`, `rebuild`; a ``loading.loader.LoadProgress``
too): on a terminal, one line redrawn in place with what is done, the rate and the time left; nothing at
all when stderr or stdout is not a terminal (CI logs, pipes) or the command prints JSON. Development
code: the Lambda layer draws no bars."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import BinaryIO, TextIO

from retrieval_core.loading.lines import CHUNK_BYTES

REDRAW_SECONDS = 0.1
"""At most ten redraws a second: a load of a million lines must not spend its time drawing."""
WIDTH = 24


class Progress:
    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        label: str = "loading",
        unit: str = "lines",
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream or sys.stderr
        self._total = max(total, 1)
        self._done = 0
        self._label = label
        self._unit = unit
        self._clock = clock
        self._started = clock()
        self._drawn = float("-inf")
        self.shown = not quiet and _is_terminal(self._stream) and _is_terminal(sys.stdout)
        self.update(0)  # the bar is there before the first item (a model may load first)

    def advance(self, count: int) -> None:
        self.update(self._done + count)

    def update(self, done: int) -> None:
        """``done`` items finished so far (the line is drawn only on a terminal)."""
        self._done = done
        if not self.shown:
            return
        now = self._clock()
        finished = self._done >= self._total
        if not finished and now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        self._stream.write(f"\r{self.line(now)}\x1b[K" + ("\n" if finished else ""))
        self._stream.flush()

    def line(self, now: float) -> str:
        """``syncing [######------] 12/40 files  3.1/s  0:09 left``."""
        filled = int(WIDTH * min(self._done, self._total) / self._total)
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = max(now - self._started, 1e-9)
        rate = self._done / elapsed
        text = f"{self._label} [{bar}] {self._done}/{self._total} {self._unit}"
        if self._done:
            left = (self._total - self._done) / rate if rate else 0.0
            text += (
                f"  {rate:.1f}/s  {_clock(left)} left" if self._done < self._total else f"  {_clock(elapsed)}"
            )
        return text

    def close(self) -> None:
        """End the line if the work stopped short of its total (an error, a skip)."""
        if self.shown and self._done < self._total and self._drawn > float("-inf"):
            self._stream.write("\n")
            self._stream.flush()


COPIED = re.compile(r"^(?P<label>.*copied) (?P<done>\d+) of ~(?P<total>\d+)$")


class CopyProgress:
    """The rebuilder's progress lines (``acme: copied 500 of ~2000``) on a terminal: a copy's counts as
    one redrawn bar per copy, every other line (a switch, a rollback) as it comes; nothing elsewhere
    (the command's summary says what was done)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._bar: Progress | None = None
        self._label = ""

    def __call__(self, line: str) -> None:
        copied = COPIED.match(line)
        if copied is None:
            self.close()
            if _is_terminal(self._stream or sys.stderr) and _is_terminal(sys.stdout):
                print(line, file=self._stream or sys.stderr, flush=True)
            return
        if self._bar is None or copied["label"] != self._label:
            self.close()
            self._label = copied["label"]
            self._bar = Progress(
                int(copied["total"]), stream=self._stream, label=self._label, unit="documents"
            )
        self._bar.update(int(copied["done"]))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def count_lines(stream: BinaryIO) -> int:
    """How many lines ``read_lines`` will yield for the same content (the bar's total)."""
    count, last = 0, b"\n"
    while chunk := stream.read(CHUNK_BYTES):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")
