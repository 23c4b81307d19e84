"""Every search the store sends carries the node's limits, derived from the call's deadline-cut timeout:
a body ``timeout`` inside it and ``cancel_after_time_interval`` at it (adapters/opensearch/store.py)."""

from __future__ import annotations

import json
from typing import Any, cast

from retrieval_core import backend_calls
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.store import (
    MINIMUM_NODE_MILLIS,
    OpenSearchStore,
    cancel_after,
    node_millis,
)
from retrieval_core.ports import SearchFilters

EMPTY = {"hits": {"hits": []}}


class RecordingClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def search(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("search", kwargs))
        return EMPTY

    def msearch(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("msearch", kwargs))
        searches = kwargs["body"].count("\n") // 2
        return {"responses": [EMPTY] * searches}


def _store(client: RecordingClient, timeout: float = 5.0) -> OpenSearchStore:
    return OpenSearchStore(cast(Any, client), IndexLayout("retrieval"), timeout=timeout)


def test_a_search_stops_on_the_node_before_its_client_gives_up() -> None:
    client = RecordingClient()
    _store(client).lexical("acme", "who leads payments", SearchFilters(size=10))
    ((kind, call),) = client.calls
    assert kind == "search"
    assert call["request_timeout"] == 5.0
    assert call["body"]["timeout"] == "4000ms"
    assert call["cancel_after_time_interval"] == "5000ms"


def test_every_search_of_an_msearch_is_bounded_by_the_time_left() -> None:
    client = RecordingClient()
    with backend_calls.within(1.0):
        _store(client).hybrid("acme", "who leads payments", [0.1] * 8, SearchFilters(size=10), depth=20)
    ((kind, call),) = client.calls
    assert kind == "msearch"
    assert call["request_timeout"] <= 1.0
    lines = [json.loads(line) for line in call["body"].splitlines()]
    bodies = lines[1::2]
    assert len(bodies) == 2
    node_ms = {int(body["timeout"].removesuffix("ms")) for body in bodies}
    assert len(node_ms) == 1 and 0 < node_ms.pop() <= 800
    cancel_ms = int(call["params"]["cancel_after_time_interval"].removesuffix("ms"))
    assert cancel_ms <= 1000


def test_a_nearly_spent_call_still_gives_the_node_a_positive_limit() -> None:
    assert node_millis(0.001) == MINIMUM_NODE_MILLIS
    assert cancel_after(0.001) == f"{MINIMUM_NODE_MILLIS}ms"
