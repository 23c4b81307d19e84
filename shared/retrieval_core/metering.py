"""Counting the backend calls one request makes, so responses can report ``explored.backend_calls``.

Adapters that know their real request count (Query pages, concurrent queries, batch chunks, retries
of unprocessed keys) expose it as a cumulative ``backend_calls`` counter; the meter reports how far it
moved during the request. A port without a counter is counted as one call per port call, which is what
every port promises. In Lambda the deltas are exact, because a container serves one request at a time;
under ``retrieval serve``, whose requests run concurrently on shared adapters, a metered adapter's delta
also counts calls another request made meanwhile (an overcount, never an undercount).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable


@runtime_checkable
class Metered(Protocol):
    @property
    def backend_calls(self) -> int:
        """Backend requests this adapter has made since it was created."""
        ...


class RequestTally:
    """The metered backend requests of one request (``tallied``), exact even under ``retrieval serve``:
    it lives in a context variable, which ``deadline.carry`` hands to worker threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0

    def add(self, calls: int) -> None:
        with self._lock:
            self.value += calls


_request_tally: ContextVar[RequestTally | None] = ContextVar("retrieval_request_tally", default=None)


@contextmanager
def tallied() -> Iterator[RequestTally]:
    """Count, for the request's log line, every metered adapter's backend requests inside the block."""
    tally = RequestTally()
    token = _request_tally.set(tally)
    try:
        yield tally
    finally:
        _request_tally.reset(token)


class CallCounter:
    """A thread-safe cumulative counter for adapters whose port calls fan out over worker threads; each
    addition also counts toward the current request's tally."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def add(self, calls: int = 1) -> None:
        with self._lock:
            self._value += calls
        tally = _request_tally.get()
        if tally is not None:
            tally.add(calls)

    @property
    def value(self) -> int:
        return self._value


class CallMeter:
    """The backend calls made through ``ports`` from construction until ``total`` is read."""

    def __init__(self, *ports: object) -> None:
        distinct = list({id(port): port for port in ports}.values())
        self._start = [(port, port.backend_calls) for port in distinct if isinstance(port, Metered)]
        self._unmetered_calls = 0
        self._round_trips = 0

    def port_called(self, port: object) -> None:
        """Record one call on ``port``; a metered port counts its own requests instead."""
        self._round_trips += 1
        if not isinstance(port, Metered):
            self._unmetered_calls += 1

    @property
    def round_trips(self) -> int:
        """Sequential waits on a backend: one per port call, however many requests ran concurrently in it."""
        return self._round_trips

    @property
    def total(self) -> int:
        return self._unmetered_calls + sum(port.backend_calls - start for port, start in self._start)
