"""Counting what one request costs the backends, from outside the product code.

DynamoDB: botocore's ``before-call``/``after-call`` events on the container's clients give every API call
(by operation) and its interval; overlapping intervals form one *round* (calls the handler waited for
together), so rounds are the sequential DynamoDB round trips a request made. OpenSearch: the shared
client's transport is wrapped to count HTTP requests. The product's own ``explored.backend_calls`` is
reported beside these where a response carries it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Cost:
    """What one request cost: OpenSearch requests, DynamoDB calls by operation, and DynamoDB rounds."""

    opensearch: int
    dynamodb: dict[str, int]
    dynamodb_rounds: int

    @property
    def dynamodb_calls(self) -> int:
        return sum(self.dynamodb.values())


def rounds_of(intervals: list[tuple[float, float]]) -> int:
    """How many groups of mutually overlapping calls, in time order: one group per sequential wait."""
    rounds = 0
    reach = float("-inf")
    for start, end in sorted(intervals):
        if start > reach:
            rounds += 1
        reach = max(reach, end)
    return rounds


@dataclass
class Probe:
    """Installed once on the clients a handler container uses; ``take()`` returns and resets the tally."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)
    _opensearch: int = 0
    _calls: Counter[str] = field(default_factory=Counter)
    _intervals: list[tuple[float, float]] = field(default_factory=list)
    _installed: set[int] = field(default_factory=set)

    def watch_dynamodb(self, client: Any) -> None:
        if id(client) in self._installed:
            return
        self._installed.add(id(client))
        client.meta.events.register("before-call.dynamodb", self._before)
        client.meta.events.register("after-call.dynamodb", self._after)

    def watch_opensearch(self, client: Any) -> None:
        if id(client) in self._installed:
            return
        self._installed.add(id(client))
        transport = client.transport
        perform = transport.perform_request

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self._opensearch += 1
            return perform(*args, **kwargs)

        transport.perform_request = counted

    def take(self) -> Cost:
        with self._lock:
            cost = Cost(self._opensearch, dict(self._calls), rounds_of(self._intervals))
            self._opensearch = 0
            self._calls = Counter()
            self._intervals = []
        return cost

    def _before(self, model: Any, **_: Any) -> None:
        self._local.started = time.perf_counter()
        with self._lock:
            self._calls[model.name] += 1

    def _after(self, **_: Any) -> None:
        ended = time.perf_counter()
        with self._lock:
            self._intervals.append((self._local.started, ended))


def install(probe: Probe) -> None:
    """Watch the clients the current handler container uses (built from the environment's settings)."""
    from retrieval_core.adapters.dynamodb_client import dynamodb_client, dynamodb_load_client
    from retrieval_core.adapters.opensearch.client import shared_client
    from retrieval_core.bootstrap import container

    settings = container().settings
    probe.watch_opensearch(shared_client(settings))
    probe.watch_dynamodb(dynamodb_client(settings))  # edges, lineage and sessions share it
    probe.watch_dynamodb(dynamodb_load_client(settings))  # the loader's rows
