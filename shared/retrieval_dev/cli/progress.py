"""Progress of long CLI work (`load`, `sync`, `ingest`, `eval`, `rebuild`; a ``loading.loader.LoadProgress``
too): on a terminal, one line redrawn in place with what is done, the rate and the time left. Off a
terminal (CI logs, an agent's shell, ``2>log``), a plain line on stderr with the same figures once
``PLAIN_SECONDS`` have passed, and again at least every 30 s while the work lasts (a heartbeat thread
says so even while one slow file holds the count), then a closing line: a command done within
``PLAIN_SECONDS`` prints nothing more than it did. Nothing at all when the command prints JSON.
Development code: the Lambda layer draws no bars."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from typing import BinaryIO, TextIO

from retrieval_core.loading.lines import READ_BYTES

REDRAW_SECONDS = 0.1
"""At most ten redraws a second: a load of a million lines must not spend its time drawing."""
WIDTH = 24
PLAIN_SECONDS = 20.0
"""Off a terminal, a plain line at most this often: the first one this long after the start."""
HEARTBEAT_SECONDS = 5.0
"""How often the heartbeat looks at the clock: a plain line is never more than 25 s after the last."""


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
        heartbeat: bool = True,
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
        self.plain = not quiet and not self.shown
        """Off a terminal: plain lines, at least every 30 s, once the work has lasted ``PLAIN_SECONDS``."""
        self._lock = threading.Lock()
        self._written = self._started
        self._plain_lines = 0
        self._stopped = threading.Event()
        if self.plain and heartbeat:
            threading.Thread(target=self._beat, name="progress-heartbeat", daemon=True).start()
        self.update(0)  # the bar is there before the first item (a model may load first)

    def advance(self, count: int) -> None:
        self.update(self._done + count)

    def update(self, done: int) -> None:
        """``done`` items finished so far (the line is drawn only on a terminal; off one, a plain line
        when it is due)."""
        self._done = done
        if self.plain:
            if self._done >= self._total:
                self.close()
            else:
                self.tick()
            return
        if not self.shown:
            return
        now = self._clock()
        finished = self._done >= self._total
        if not finished and now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        self._stream.write(f"\r{self.line(now)}\x1b[K" + ("\n" if finished else ""))
        self._stream.flush()

    def tick(self) -> None:
        """Off a terminal: a plain line when ``PLAIN_SECONDS`` have passed since the last one (or the
        start). The heartbeat calls it, so a line comes while one slow item holds the count."""
        with self._lock:
            now = self._clock()
            if self._stopped.is_set() or now - self._written < PLAIN_SECONDS:
                return
            self._written = now
            self._plain_lines += 1
            self._write(self.plain_line(now))

    def line(self, now: float) -> str:
        """``syncing [######------] 12/40 files  3.1/s  0:09 left``."""
        filled = int(WIDTH * min(self._done, self._total) / self._total)
        bar = "#" * filled + "-" * (WIDTH - filled)
        return f"{self._label} [{bar}] {self._figures(now)}"

    def plain_line(self, now: float) -> str:
        """``syncing: 12/40 files (30%)  3.1/s  0:09 left``: the bar's figures, no bar."""
        percent = int(100 * min(self._done, self._total) / self._total)
        done, _, rest = self._figures(now).partition("  ")
        return f"{self._label}: {done} ({percent}%)" + (f"  {rest}" if rest else "")

    def _figures(self, now: float) -> str:
        elapsed = max(now - self._started, 1e-9)
        rate = self._done / elapsed
        text = f"{self._done}/{self._total} {self._unit}"
        if self._done:
            left = (self._total - self._done) / rate if rate else 0.0
            pace = f"{rate:.1f}/s" if rate >= 1 else f"{1 / rate:.0f} s each"  # slow work: not "0.0/s"
            text += f"  {pace}  {_clock(left)} left" if self._done < self._total else f"  {_clock(elapsed)}"
        return text

    def close(self) -> None:
        """End the line if the work stopped short of its total (an error, a skip); off a terminal, stop
        the heartbeat and, when plain lines were printed, print where the work ended."""
        if self.plain:
            with self._lock:
                if self._stopped.is_set():
                    return
                self._stopped.set()
                if self._plain_lines:
                    now = self._clock()
                    ended = "done" if self._done >= self._total else "stopped"
                    self._write(f"{self.plain_line(now)}  ({ended})")
            return
        if self.shown and self._done < self._total and self._drawn > float("-inf"):
            self._stream.write("\n")
            self._stream.flush()

    def _beat(self) -> None:
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            self.tick()

    def _write(self, line: str) -> None:
        self._stream.write(line + "\n")
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
    while chunk := stream.read(READ_BYTES):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")
