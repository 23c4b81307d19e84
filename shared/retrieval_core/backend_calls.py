"""Every backend call one request makes: bounded by the request's deadline and counted in its tally.

**The deadline**: how long its backend calls may still take before it must answer 503.

The entry point sets it once per invocation from Lambda's remaining time (``for_invocation``), as a
share of that time, so a request gives up, and answers 503 with ``Retry-After``, well before the
function would be killed. Adapters ask it for each call's timeout (``timeout``) and check it before
every round trip (``check``, ``require``); a passed deadline raises ``DeadlineExceededError``, a
``BackendUnavailableError``. Outside an invocation (the CLI, the loader) there is no deadline and calls
use their configured timeouts alone.

The deadline is a context variable: concurrent requests of a local server each keep their own, and
work handed to another thread takes it along through ``carry`` (``concurrently`` runs one call beside
another that way: a hybrid request's feedback first pass beside the query's embedding).

**The tally**: the backend calls one request makes, counted so that responses can report
``explored.backend_calls``, and carried to worker threads with the deadline.

Adapters that know their real request count (Query pages, concurrent queries, batch chunks, retries
of unprocessed keys) expose it as a cumulative ``backend_calls`` counter; the meter reports how far it
moved during the request. A port without a counter is counted as one call per port call, which is what
every port promises. In Lambda the deltas are exact, because a container serves one request at a time;
under ``retrieval serve``, whose requests run concurrently on shared adapters, a metered adapter's delta
also counts calls another request made meanwhile (an overcount, never an undercount).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar, runtime_checkable

from .errors import DeadlineExceededError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

P = ParamSpec("P")
T = TypeVar("T")
B = TypeVar("B")

MINIMUM_CALL_SECONDS = 0.05
"""A call with less time than this left is not started: it could not finish."""

_deadline: ContextVar[float | None] = ContextVar("retrieval_deadline", default=None)


class InvocationContext(Protocol):
    def get_remaining_time_in_millis(self) -> int: ...


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Backend calls inside the block must be done ``seconds`` from now."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def for_invocation(context: InvocationContext | Any, share: float) -> Iterator[None]:
    """The deadline of one Lambda invocation: ``share`` of its remaining time. A context that does not
    tell its remaining time (a test's stand-in) sets none."""
    remaining_ms = getattr(context, "get_remaining_time_in_millis", None)
    if remaining_ms is None:
        yield
        return
    with within(share * remaining_ms() / 1000):
        yield


def remaining() -> float | None:
    """Seconds left before the deadline (negative once passed), or None without a deadline."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def check() -> None:
    """Raise ``DeadlineExceededError`` if too little time is left to start another call."""
    require(MINIMUM_CALL_SECONDS)


def require(seconds: float) -> None:
    """Raise ``DeadlineExceededError`` unless at least ``seconds`` are left (or there is no deadline)."""
    left = remaining()
    if left is not None and left < seconds:
        raise DeadlineExceededError()


def timeout(configured: float) -> float:
    """The timeout for one call: ``configured``, shortened to the time left before the deadline."""
    check()
    left = remaining()
    return configured if left is None else min(configured, left)


def carry(function: Callable[P, T]) -> Callable[P, T]:
    """``function`` bound to the caller's deadline (and the rest of its context variables: the request's
    call tally, ``tallied``), to run on another thread (thread pools do not copy them)."""
    captured = contextvars.copy_context()

    def in_callers_context(*args: P.args, **kwargs: P.kwargs) -> T:
        # A copy per call: one context cannot be entered by two threads at once.
        return captured.copy().run(function, *args, **kwargs)

    return in_callers_context


WORKERS = 4
"""Calls that may run beside another at once in one container (``retrieval serve`` answers several
requests at a time; a Lambda container one)."""


@cache
def _workers() -> ThreadPoolExecutor:
    """Made on first use and kept for the container's life (no threads per request); the functions that
    never run a call beside another never import ``concurrent.futures`` (about 18 ms cold)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="beside")


def concurrently(first: Callable[[], T], second: Callable[[], B]) -> tuple[T, B]:
    """``first`` on a worker thread (with this deadline) while ``second`` runs on this one. A search
    waits on the network and an embedding on native code: neither holds the GIL for long, so the two
    cost about the longer of them instead of their sum. When ``second`` fails, its error leaves only
    once ``first`` has ended too: nothing the call started runs on behind its caller (a Lambda would
    freeze it mid-flight; a load would be reported failed with a chunk still being written)."""
    from concurrent.futures import wait

    started = _workers().submit(carry(first))
    try:
        other = second()
    except BaseException:
        wait((started,))
        raise
    return started.result(), other


@runtime_checkable
class Metered(Protocol):
    @property
    def backend_calls(self) -> int:
        """Backend requests this adapter has made since it was created."""
        ...


class RequestTally:
    """The metered backend requests of one request (``tallied``), exact even under ``retrieval serve``:
    it lives in a context variable, which ``carry`` hands to worker threads."""

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
