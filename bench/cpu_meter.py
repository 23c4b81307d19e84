"""CPU seconds beside wall seconds, for runs on a shared machine (issue 66's ``sync-scale``).

On two cores shared by several sessions, a file's wall time measures the machine's load as much as the
code: the same sync ran 799 ms a file at load 11 and 353 ms at load 2. CPU seconds are what the work
itself costs, whoever else runs. A sync's work is spread over three processes, so a ``Reading`` takes
the CPU seconds of this process (all its threads: the embedder's, the writer thread's) and of this
worktree's own stack (its OpenSearch node and moto server, from ``.stack/``'s pid files: no other
session's; each apart, as deployed both are managed services whose CPU is not the ingest's, and moto
spends far more per request than DynamoDB would), with the wall clock and the one-minute load average
beside them. A run keeps a reading per
file; ``first`` and ``last`` give the windows at either end, and ``Window`` their figures per file.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from dev import processes
from dev.stack_env import STACK_DIR

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


SERVICES = ("opensearch", "moto")
"""The stack's services whose CPU is read apart (``.stack/opensearch*.pid``, ``.stack/dynamodb.pid``)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What was spent up to a moment: ``files`` done, wall seconds, CPU seconds of this process
    (``own``), of the stack's OpenSearch node(s) and of its moto server, the one-minute load average."""

    files: int
    wall: float
    own: float
    opensearch: float
    moto: float
    load: float

    @property
    def stack(self) -> float:
        return self.opensearch + self.moto

    def row(self) -> list[float]:
        return [self.files, self.wall, self.own, self.opensearch, self.moto, self.load]

    @classmethod
    def of(cls, row: list[float]) -> Reading:
        files, wall, own, opensearch, moto, load = row
        return cls(int(files), wall, own, opensearch, moto, load)


@dataclass(frozen=True, slots=True)
class Window:
    """The files between two readings and what they cost: per file in wall and CPU milliseconds (CPU:
    this process and its stack together), and the load averages seen over them (lowest, highest)."""

    files: int
    wall_seconds: float
    own_cpu_seconds: float
    opensearch_cpu_seconds: float
    moto_cpu_seconds: float
    load_low: float
    load_high: float

    @property
    def stack_cpu_seconds(self) -> float:
        return self.opensearch_cpu_seconds + self.moto_cpu_seconds

    @property
    def cpu_seconds(self) -> float:
        return self.own_cpu_seconds + self.stack_cpu_seconds

    @property
    def wall_ms_per_file(self) -> float:
        return self.wall_seconds * 1000 / self.files

    @property
    def cpu_ms_per_file(self) -> float:
        return self.cpu_seconds * 1000 / self.files

    @property
    def files_per_second(self) -> float:
        return self.files / self.wall_seconds if self.wall_seconds else 0.0

    def figures(self) -> dict[str, float]:
        return {
            "files": self.files,
            "wall_seconds": self.wall_seconds,
            "cpu_seconds": self.cpu_seconds,
            "own_cpu_seconds": self.own_cpu_seconds,
            "stack_cpu_seconds": self.stack_cpu_seconds,
            "opensearch_cpu_seconds": self.opensearch_cpu_seconds,
            "moto_cpu_seconds": self.moto_cpu_seconds,
            "files_per_second": self.files_per_second,
            "wall_ms_per_file": self.wall_ms_per_file,
            "cpu_ms_per_file": self.cpu_ms_per_file,
            "load_low": self.load_low,
            "load_high": self.load_high,
        }


def between(readings: list[Reading]) -> Window:
    """The window from the first of ``readings`` to the last (the loads: every reading's in it)."""
    start, end = readings[0], readings[-1]
    loads = [reading.load for reading in readings]
    return Window(
        files=end.files - start.files,
        wall_seconds=end.wall - start.wall,
        own_cpu_seconds=end.own - start.own,
        opensearch_cpu_seconds=end.opensearch - start.opensearch,
        moto_cpu_seconds=end.moto - start.moto,
        load_low=min(loads),
        load_high=max(loads),
    )


def first(readings: list[Reading], size: int) -> Window:
    """From the first reading to the first that is ``size`` files or more past it (files are counted
    as a run reports them: a batch may finish several at once)."""
    start = readings[0].files
    end = next((i for i, r in enumerate(readings) if r.files - start >= size), len(readings) - 1)
    return between(readings[: end + 1])


def last(readings: list[Reading], size: int) -> Window:
    """From the latest reading ``size`` files or more before the last reading, to the last."""
    end = readings[-1].files
    start = next((i for i in range(len(readings) - 1, -1, -1) if end - readings[i].files >= size), 0)
    return between(readings[start:])


def series(readings: list[Reading], size: int) -> list[Window]:
    """The run cut into consecutive windows of ``size`` files or more each (a batch may finish several
    at once): where in a run the cost per file went, and to which service. What is left at the end
    (fewer files, and the last reading: the final commit, with no file more) joins the last window, as
    it is in ``last``; a run of fewer than ``size`` files is one window; no window is without a file."""
    cuts = [0]
    for at in range(1, len(readings)):
        if readings[at].files - readings[cuts[-1]].files >= size:
            cuts.append(at)
    end = len(readings) - 1
    if cuts[-1] != end:
        if len(cuts) > 1:
            cuts[-1] = end
        elif readings[end].files > readings[0].files:
            cuts.append(end)
    return [between(readings[a : b + 1]) for a, b in itertools.pairwise(cuts)]


def _after(readings: list[Reading], windows: list[Window]) -> list[tuple[int, Window]]:
    """Each of ``windows`` (``series`` of ``readings``) with the files done before it."""
    done, numbered = readings[0].files, []
    for window in windows:
        numbered.append((done, window))
        done += window.files
    return numbered


def costliest(readings: list[Reading], size: int) -> tuple[int, Window] | None:
    """The window of ``series`` with the most CPU a file, with the files done before it (None: no
    window)."""
    return _costliest_of(_after(readings, series(readings, size)))


def _costliest_of(numbered: list[tuple[int, Window]]) -> tuple[int, Window] | None:
    return max(numbered, key=lambda pair: pair[1].cpu_ms_per_file, default=None)


def cpu_seconds_in_stat(stat: str) -> float:
    """User plus system CPU seconds from a ``/proc/<pid>/stat`` line (fields 14 and 15, counted after
    the command's closing parenthesis, as a command may hold spaces and parentheses)."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds ``pid`` has used (0 once it is gone: its time is no longer readable)."""
    try:
        return cpu_seconds_in_stat(Path(f"/proc/{pid}/stat").read_text())
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


Stack = dict[str, list[int]]
"""Each of ``SERVICES`` -> its processes."""


def stack_pids(stack_dir: Path = STACK_DIR) -> Stack:
    """The processes of this worktree's stack, by service (each service's process group, as
    ``dev.stack`` started it); empty lists when it is not running here."""
    pids: Stack = {service: [] for service in SERVICES}
    for state_file in sorted(stack_dir.glob("*.pid")):
        service = "moto" if state_file.stem == "dynamodb" else "opensearch"
        try:
            leader = int(json.loads(state_file.read_text())["pid"])
        except (ValueError, KeyError, TypeError, OSError):
            continue
        pids[service] += processes.group_members(leader) if processes.is_alive(leader) else []
    return pids


def stack_seconds(stack: Stack) -> dict[str, float]:
    """CPU seconds each service's processes have used so far."""
    return {service: sum(process_cpu_seconds(pid) for pid in stack.get(service, [])) for service in SERVICES}


class Meter:
    """Readings of this process and its stack since the meter was made."""

    def __init__(self, stack: Stack | None = None) -> None:
        self._stack = stack_pids() if stack is None else stack
        self._wall, self._own, self._stack_cpu = time.perf_counter(), _own_cpu(), stack_seconds(self._stack)
        self.readings: list[Reading] = [Reading(0, 0.0, 0.0, 0.0, 0.0, os.getloadavg()[0])]

    def start_windows_here(self) -> Reading:
        """A reading now that every later window starts from (files 0): what came before (a sync's
        pre-pass) stays in the whole run's figures, which its caller keeps, and in no window."""
        reading = self.read(0)
        self.readings[:] = [reading]
        return reading

    def read(self, files: int) -> Reading:
        spent = stack_seconds(self._stack)
        reading = Reading(
            files=files,
            wall=time.perf_counter() - self._wall,
            own=_own_cpu() - self._own,
            opensearch=spent["opensearch"] - self._stack_cpu["opensearch"],
            moto=spent["moto"] - self._stack_cpu["moto"],
            load=os.getloadavg()[0],
        )
        self.readings.append(reading)
        return reading


def _own_cpu() -> float:
    spent = os.times()
    return spent.user + spent.system


def ends(readings: list[Reading], size: int) -> dict[str, object]:
    """The first and the last ``size`` files' windows, the whole run's, last over first (wall and CPU
    per file), the costliest window (``after_files``: the files done before it) and every window's
    cost a file by service (``series``: files done at its end, then wall, process, OpenSearch and
    moto milliseconds a file)."""
    head, tail, whole = first(readings, size), last(readings, size), between(readings)
    numbered = _after(readings, series(readings, size))
    worst = _costliest_of(numbered)
    return {
        "first": head.figures(),
        "last": tail.figures(),
        "whole": whole.figures(),
        "last_over_first_wall": tail.wall_ms_per_file / head.wall_ms_per_file,
        "last_over_first_cpu": tail.cpu_ms_per_file / head.cpu_ms_per_file,
        "costliest": None if worst is None else {"after_files": worst[0], **worst[1].figures()},
        "series": [_series_row(done, window) for done, window in numbered],
    }


def _series_row(before: int, window: Window) -> list[float]:
    """Files done at the window's end, then its wall, process, OpenSearch and moto ms a file."""
    spent = (
        window.wall_seconds,
        window.own_cpu_seconds,
        window.opensearch_cpu_seconds,
        window.moto_cpu_seconds,
    )
    return [before + window.files, *(round(seconds * 1000 / window.files, 1) for seconds in spent)]


def progress_text(readings: list[Reading], size: int) -> str:
    """``CPU ms per file (this process + its stack), first 500 310, latest 500 330 (1.06x); load 4.1``
    for a progress line (empty before two readings)."""
    if len(readings) < 3 or readings[-1].files < 2:
        return ""
    window = min(size, max(1, readings[-1].files // 2))
    head, tail = first(readings, window), last(readings, window)
    return (
        f"; CPU ms per file (process + stack), first {head.files:,} {head.cpu_ms_per_file:,.0f}, latest "
        f"{tail.files:,} {tail.cpu_ms_per_file:,.0f} ({tail.cpu_ms_per_file / head.cpu_ms_per_file:.2f}x); "
        f"load {readings[-1].load:.1f}"
    )
