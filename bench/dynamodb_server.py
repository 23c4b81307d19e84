"""The bench's own DynamoDB: a fresh server of the dev stack's moto (``dev.moto_serialized``, whose Query
reads one partition: ``dev.moto_faithful``) on a free local port, started and stopped by the run."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dev import moto_server, processes

from .progress import say

STARTUP_SECONDS = 30.0


class DynamoDBStartError(RuntimeError):
    """The bench's moto server did not come up."""


@contextmanager
def fresh_moto(log_dir: Path) -> Iterator[str]:
    """Yield the endpoint of a fresh moto server; stop its process group afterwards."""
    port = processes.free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log_dir.mkdir(parents=True, exist_ok=True)
    command = moto_server.command(port)
    pid = processes.spawn_detached(command, log_dir / "moto.log", cwd=Path(__file__).resolve().parents[1])
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not moto_server.is_healthy(endpoint):
            if not processes.is_alive(pid) or time.monotonic() > deadline:
                raise DynamoDBStartError(f"the bench's moto did not start; see {log_dir / 'moto.log'}")
            time.sleep(0.2)
        say(f"DynamoDB: the bench's own moto at {endpoint} (pid {pid})")
        yield endpoint
    finally:
        processes.stop_group(pid)


def add_stack_dynamodb_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stack-dynamodb",
        action="store_true",
        help="use the stack's moto (its tables as the stack holds them) instead of a fresh one",
    )


@contextmanager
def bench_dynamodb(log_dir: Path, *, use_stack: bool) -> Iterator[str | None]:
    """The DynamoDB endpoint to measure against: the bench's own indexed moto, or None (the stack's)
    when ``use_stack``."""
    if use_stack:
        yield None
        return
    with fresh_moto(log_dir) as endpoint:
        yield endpoint
