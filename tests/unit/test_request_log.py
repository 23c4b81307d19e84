"""Each request ends with one ``answered`` log line naming its context, mode, route, status, outcome,
latency and backend calls: what finds the noisy tenant (docs/OPERATIONS.md). Its keys end with the
request, so the next request never logs under another tenant's context."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fakes_graph import FakeGraph, FakeLineage
from fakes_store import FixedEmbedder, InMemoryStore, capabilities_of
from retrieval_core import backend_calls, bootstrap
from retrieval_core.config import Settings
from retrieval_core.entrypoints.instruments import outcome_of
from retrieval_core.models.item import Item
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import handler_module, invoke


class CountingStore(InMemoryStore):
    """The in-memory store, metered like the OpenSearch adapter: one request per port call."""

    def __init__(self, items: list[Item]) -> None:
        super().__init__(items)
        self.counter = backend_calls.CallCounter()

    @property
    def backend_calls(self) -> int:
        return self.counter.value

    def lexical(self, *args: Any, **kwargs: Any) -> Any:
        self.counter.add()
        return super().lexical(*args, **kwargs)


@pytest.fixture(autouse=True)
def fakes() -> Iterator[None]:
    store = CountingStore(
        [
            Item.model_validate(
                {
                    "id": "acme:p-1",
                    "context_id": "acme",
                    "kind": "proposition",
                    "text": "Alice Chen leads the Payments team",
                    "created_at": "2026-03-01T00:00:00Z",
                    "embedding": [1.0, 0.0],
                }
            )
        ]
    )
    container = bootstrap.Container(
        Settings(),
        overrides={
            "capabilities": capabilities_of(store, FakeGraph(), FixedEmbedder({}, dimension=2)),
            "items": store,
            "edges": FakeGraph(),
            "lineage": FakeLineage(),
        },
    )
    with bootstrap.use(container):
        yield


def _answered_lines(err: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("message") == "answered"]


def test_a_request_logs_its_context_mode_latency_calls_and_outcome() -> None:
    logger = handler_module("retrieve").tools.logger
    # The function's own formatter on a stream of the test's: whichever stream the module's handler was
    # bound to when some earlier test loaded it, these are the lines the function logs.
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    logger.setLevel("INFO")
    try:
        body = {"mode": "lexical", "text": "payments team", "feedback": {"enabled": False}}
        ok = invoke("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
        anonymous = api_event("POST", "/v1/retrieve", "acme", body=body)
        anonymous["requestContext"]["authorizer"] = None
        refused = invoke("retrieve", anonymous)
    finally:
        logger.setLevel("WARNING")
        logger.removeHandler(handler)
    first, second = _answered_lines(stream.getvalue())
    assert (ok["statusCode"], refused["statusCode"]) == (200, 401)
    assert (first["context_id"], first["mode"], first["route"]) == ("acme", "lexical", "/v1/retrieve")
    assert (first["status"], first["outcome"], first["backend_calls"]) == (200, "ok", 1)
    assert first["latency_ms"] >= 0
    # The refused request came after acme's in the same container: it logs no context and no mode.
    assert "context_id" not in second and "mode" not in second
    assert (second["status"], second["outcome"], second["backend_calls"]) == (401, "refused", 0)


@pytest.mark.parametrize(
    ("status", "outcome"),
    [(200, "ok"), (404, "refused"), (422, "refused"), (429, "throttled"), (503, "failed")],
)
def test_outcomes_by_status(status: int, outcome: str) -> None:
    assert outcome_of(status) == outcome
