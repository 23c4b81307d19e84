"""Where ``retrieval serve`` runs the functions' handlers: in warm containers, as Lambda does, or on
threads of the serving process.

Deployed, every concurrent invocation has a container of its own: its own interpreter, its own
composition root (clients, embedder, caches), one invocation at a time. ``FunctionContainers`` does the
same with worker processes: each handles one invocation at a time and keeps what the handler built
(warm), so one tenant's expensive request holds its own container's interpreter, never the one serving
another tenant's request. The gateway (routing, the dev authorizer, the usage gate) stays in the serving
process, on the event loop. ``FunctionThreads`` runs every handler in the serving process instead (one
interpreter for all requests): what the in-process tests use, and ``retrieval serve --containers 0``.

A container starts on its first invocation (a cold start: the handler modules load and the first request
builds the composition root, about a second) and stays warm. An invocation takes the container that
became idle last, so one caller at a time keeps reusing one warm container and only concurrency starts
more, as Lambda scales. A container is a process forked from a fork server that has already imported the
runtime, so starting one costs a fork, not an interpreter's start. A container that dies (a crash, a
kill) is replaced by a fresh one and its request answered 502, as API Gateway answers a function that
crashed.
"""

from __future__ import annotations

import asyncio
import contextvars
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

PRELOADED = ("retrieval_dev.serving.containers", "retrieval_core.bootstrap", "retrieval_core.entrypoints.api")
"""Imported once by the fork server, so each container starts with them: the runtime's heavy imports."""
SERVER_CHECK_SECONDS = 1.0
Invocation = Callable[[str, dict[str, Any]], dict[str, Any]]
"""What a container runs for one invocation (``lambda_runtime.invoke``; a module-level function: it is
sent to the container by name)."""


class FunctionCrashedError(Exception):
    """The container running the invocation died before it answered."""


class Functions(Protocol):
    async def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class FunctionThreads:
    """Every handler on a thread of the serving process (handlers block; the event loop keeps answering)."""

    def __init__(self, workers: int) -> None:
        self._workers = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="serve")

    async def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        from retrieval_dev.cli.lambda_runtime import invoke

        call = contextvars.copy_context().run
        response: dict[str, Any] = await asyncio.get_running_loop().run_in_executor(
            self._workers, call, invoke, function, event
        )
        return response

    def close(self) -> None:
        self._workers.shutdown(wait=False, cancel_futures=True)


class FunctionContainers:
    """At most ``count`` containers; while all are busy an invocation waits on the event loop, holding
    nothing (as a function at its reserved concurrency would be throttled, but queued instead)."""

    def __init__(self, count: int, *, show_metrics: bool = False, run: Invocation | None = None) -> None:
        from retrieval_dev.cli.lambda_runtime import invoke

        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(list(PRELOADED))
        self._show_metrics = show_metrics
        self._run = run or invoke
        self._containers = [self._container() for _ in range(count)]
        self._idle: asyncio.LifoQueue[int] | None = None

    async def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        idle = self._idle_queue()
        slot = await idle.get()
        try:
            # Submitted from a thread: a container's first submission forks it, which is not for the loop.
            running = await asyncio.to_thread(self._containers[slot].submit, self._run, function, event)
            response: dict[str, Any] = await asyncio.wrap_future(running)
            return response
        except BrokenProcessPool:
            self._containers[slot] = self._container()  # Lambda replaces a container that died
            raise FunctionCrashedError(f"the {function} container died during the invocation") from None
        finally:
            idle.put_nowait(slot)

    def close(self) -> None:
        for container in self._containers:
            container.shutdown(wait=False, cancel_futures=True)

    def _idle_queue(self) -> asyncio.LifoQueue[int]:
        if self._idle is None:  # made on the event loop that serves (the queue belongs to it)
            self._idle = asyncio.LifoQueue()
            for slot in reversed(range(len(self._containers))):
                self._idle.put_nowait(slot)
        return self._idle

    def _container(self) -> Executor:
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=self._context,
            initializer=container_started,
            initargs=(self._show_metrics, os.getpid()),
        )


def container_started(show_metrics: bool, server: int) -> None:
    """A container's init: its output sorted as the functions' is, and its end when the server's."""
    from retrieval_dev.cli.lambda_runtime import FUNCTION_OUTPUT
    from retrieval_dev.cli.lambda_runtime import show_metrics as route_metrics

    sys.stdout = FUNCTION_OUTPUT  # for the container's whole life, as serve redirects its own
    route_metrics(show_metrics)
    threading.Thread(target=_end_with, args=(server,), name="server-watch", daemon=True).start()


def _end_with(server: int) -> None:
    """End this container once the serving process is gone. A signal ends that process without
    shutting its containers down (uvicorn raises SIGTERM again once it has stopped serving), and the
    fork server, their parent, outlives it: each container holds the fork server's pipe open."""
    while _alive(server):
        threading.Event().wait(SERVER_CHECK_SECONDS)
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: delivers nothing, only checks the process exists
    except ProcessLookupError:
        return False
    return True
