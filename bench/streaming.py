"""Memory on a long JSON Lines file (issue 51): ``python -m bench.streaming --lines 1000000`` writes a
file of that many small items (one line in ``BAD_EVERY`` malformed), then streams it through the real
``Loader`` (parsing, validation, chunking, reports) into writers that keep nothing and an embedder that
returns one fixed vector, so what is measured is the loader's own memory, not a backend's or a model's.
It prints one JSON object: the process's RSS after each tenth of the file, lines per second, and the
report's counts. ``bench/__main__.py`` runs it as section ``streaming`` in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

BAD_EVERY = 1_000
DIMENSION = 384


class _KeepNothing:
    """``ItemWriter`` and ``LineageWriter`` that accept every write and keep none of it."""

    def prepare(self, context_ids: Iterable[str]) -> None:
        pass

    def index(self, items: Sequence[Any]) -> list[Any]:
        return []

    def delete(self, keys: Sequence[Any]) -> list[str]:
        return []

    def refresh(self, context_ids: Iterable[str]) -> None:
        pass

    def write(self, items: Sequence[Any]) -> set[str]:
        return set()

    def discard(self, items: Sequence[Any]) -> None:
        pass

    def delete_links(self, keys: Sequence[Any]) -> set[str]:
        return set()

    def delete_cards(self, keys: Sequence[Any]) -> None:
        pass


class _FixedVector:
    dimension = DIMENSION
    name = "fixed"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vector = [1.0] + [0.0] * (DIMENSION - 1)
        return [vector for _ in texts]


class _Tenths:
    """``LoadProgress`` that notes the RSS each time another tenth of the lines is done."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.samples: list[dict[str, float]] = []
        self._started = time.perf_counter()

    def advance(self, count: int) -> None:
        before, self.done = self.done, self.done + count
        if before * 10 // self.total != self.done * 10 // self.total:
            self.samples.append({"lines": self.done, "rss_mib": round(_rss_mib(), 1)})
            print(f"  {self.done:,} lines, RSS {_rss_mib():.0f} MiB", file=sys.stderr, flush=True)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._started


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_file(path: Path, lines: int) -> None:
    with path.open("w") as out:
        for n in range(lines):
            if n % BAD_EVERY == BAD_EVERY - 1:
                out.write('{"id": "stream:bad", "kind": \n')
                continue
            item = {
                "id": f"stream:p-{n}",
                "context_id": "stream",
                "kind": "proposition",
                "text": f"Proposition {n} says that item {n % 997} relates to item {n % 991}.",
                "created_at": "2026-01-01T00:00:00Z",
            }
            out.write(json.dumps(item) + "\n")


def measure(lines: int) -> dict[str, Any]:
    from retrieval_core.loading.loader import Loader

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stream.jsonl"
        write_file(path, lines)
        writers = _KeepNothing()
        loader = Loader(items=writers, lineage=writers, embedder=_FixedVector())
        start_rss = _rss_mib()
        progress = _Tenths(lines)
        with path.open("rb") as stream:
            report = loader.load_lines(stream, progress=progress)
    return {
        "lines": lines,
        "bad_every": BAD_EVERY,
        "lines_per_second": round(lines / progress.seconds),
        "rss_mib_before": round(start_rss, 1),
        "rss_mib_by_tenth": progress.samples,
        "loaded": report.loaded,
        "rejected": report.rejected,
    }


def in_fresh_process(lines: int) -> dict[str, Any]:
    """``measure(lines)`` in a new interpreter, whose RSS holds nothing but the loader's work."""
    import subprocess

    command = [sys.executable, "-m", "bench.streaming", f"--lines={lines}"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1])
    return dict(json.loads(done.stdout.splitlines()[-1]))


def markdown(result: dict[str, Any]) -> str:
    tenths = result["rss_mib_by_tenth"]
    return (
        f"{result['lines']:,} JSON lines (one in {result['bad_every']:,} malformed) through the loader into "
        f"writers that keep nothing: {result['lines_per_second']:,} lines/s; RSS {result['rss_mib_before']} "
        f"MiB before, {tenths[0]['rss_mib']} MiB after the first tenth, {tenths[-1]['rss_mib']} MiB at the "
        f"end ({result['loaded']:,} loaded, {result['rejected']:,} rejected)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    print(json.dumps(measure(parser.parse_args().lines)))


if __name__ == "__main__":
    main()
