"""``concurrently``: the feedback first pass runs beside the query's embedding, with the request's
deadline, and its failures reach the caller."""

from __future__ import annotations

import threading

import pytest
from retrieval_core import backend_calls
from retrieval_core.backend_calls import concurrently
from retrieval_core.errors import DeadlineExceededError


def test_both_run_at_once_and_their_results_come_back_in_order() -> None:
    second_started = threading.Event()

    def first() -> str:
        # Finishes only once the other has started: run one after the other, this would time out.
        assert second_started.wait(timeout=10)
        return "searched"

    def second() -> list[float]:
        second_started.set()
        return [1.0, 0.0]

    assert concurrently(first, second) == ("searched", [1.0, 0.0])


def test_the_worker_keeps_the_requests_deadline() -> None:
    with backend_calls.within(30):
        left, _ = concurrently(backend_calls.remaining, lambda: None)
    assert left is not None and 0 < left <= 30
    # Already passed: the worker's backend call must refuse to start.
    with backend_calls.within(-1), pytest.raises(DeadlineExceededError):
        concurrently(backend_calls.check, lambda: None)


def test_a_failed_first_pass_fails_the_request() -> None:
    def failing() -> None:
        raise RuntimeError("search failed")

    with pytest.raises(RuntimeError, match="search failed"):
        concurrently(failing, lambda: 1)


def test_a_failed_second_call_leaves_only_once_the_first_has_ended() -> None:
    second_failed, first_ended = threading.Event(), threading.Event()

    def first() -> None:
        assert second_failed.wait(timeout=10)
        first_ended.set()

    def second() -> None:
        second_failed.set()
        raise RuntimeError("embedding failed")

    with pytest.raises(RuntimeError, match="embedding failed"):
        concurrently(first, second)
    assert first_ended.is_set()
