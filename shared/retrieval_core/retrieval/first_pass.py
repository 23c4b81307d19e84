"""Running a feedback first pass beside the query's embedding.

BM25's top hits, with their texts and vectors, do not depend on the query vector: a hybrid request
searches them on a worker thread while the query is embedded (locally: native code; deployed: a Bedrock
call), so the first pass costs about the longer of the two instead of their sum.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from .. import deadline

A = TypeVar("A")
B = TypeVar("B")

WORKERS = 4
"""First passes that may run at once in one container (``retrieval serve`` answers several requests at
a time; a Lambda container one)."""
_WORKERS = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="first-pass")
"""Kept for the container's life: an executor starts its threads on first use (the first feedback
request), and none per request."""


def concurrently(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """``first`` on a worker thread (with the request's deadline) while ``second`` runs on this one.
    A search waits on the network and an embedding on native code: neither holds the GIL for long."""
    started = _WORKERS.submit(deadline.carry(first))
    other = second()
    return started.result(), other
