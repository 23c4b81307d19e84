"""``python -m tests.integration.killed_at N retrieval ARGS...``: the ``retrieval`` command, SIGKILLed just
before its N-th write to a store (a search document batch, a lineage or graph row batch, a file's record),
so a crash lands at the same point on every run, between two writes, with no sleep to time it (a call
with nothing to write is not counted). Each counted write is named on stderr.

Counted writes: ``ItemWriter.index``/``delete``, ``LineageWriter.write``/``delete_links``/
``delete_cards``/``discard`` and ``DocumentStatusStore.put``/``put_many``. ``killed(...)`` runs it
from a test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tests.processes import REPO

KILLED = -signal.SIGKILL
WRITES = {
    "retrieval_core.adapters.opensearch.writer:OpenSearchItemWriter": ("index", "delete"),
    "retrieval_core.adapters.dynamodb_lineage_writer:DynamoDBLineageWriter": (
        "write",
        "delete_links",
        "delete_cards",
        "discard",
    ),
    "retrieval_core.adapters.dynamodb_documents:DynamoDocumentStatuses": ("put", "put_many"),
}


def killed(
    at: int, args: list[str | Path], env: Mapping[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``retrieval ARGS`` to be killed before write ``at`` (it may finish first: see returncode)."""
    command = [sys.executable, "-m", "tests.integration.killed_at", str(at), *map(str, args)]
    return subprocess.run(
        command, cwd=REPO, env=dict(env), capture_output=True, text=True, timeout=timeout, check=False
    )


def _counting(at: int) -> None:
    import importlib

    lock = threading.Lock()  # the loader writes from a worker thread
    done = [0]

    def wrapped(original: Callable[..., Any]) -> Callable[..., Any]:
        def write(*args: Any, **kwargs: Any) -> Any:
            if isinstance(args[1], list | tuple) and not args[1]:  # nothing to write: no write at all
                return original(*args, **kwargs)
            with lock:
                done[0] += 1
                print(f"write {done[0]}: {original.__qualname__}", file=sys.stderr, flush=True)
                if done[0] >= at:
                    os.kill(os.getpid(), signal.SIGKILL)
            return original(*args, **kwargs)

        return write

    for target, methods in WRITES.items():
        module, name = target.split(":")
        cls = getattr(importlib.import_module(module), name)
        for method in methods:
            setattr(cls, method, wrapped(getattr(cls, method)))


def main() -> int:
    at, command, *args = sys.argv[1:]
    assert Path(command).name == "retrieval", command
    _counting(int(at))
    from retrieval_dev.cli import main as retrieval

    return retrieval(args)


if __name__ == "__main__":
    sys.exit(main())
