"""The real function handlers, in-process, composed over the unit-test fakes (no backend at all).

``FakeFunctions.call`` sends an API Gateway event (or a direct-invocation payload) to a handler and
returns its raw Lambda result, exactly as API Gateway or Step Functions would receive it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_graph import FakeGraph, FakeLineage
from fakes_store import FixedEmbedder, InMemoryStore
from retrieval_core import bootstrap
from retrieval_core.bootstrap import Container
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_core.policy import PolicyConfig, RetrievalPolicy
from retrieval_core.policy.memory import InMemorySessionStore
from retrieval_core.retrieval.config import preset
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module, lambda_environment

REPO = Path(__file__).resolve().parents[2]
DIMENSION = 4
ITEMS = [
    Item.model_validate(
        {
            "id": f"{ctx}:p-{n}",
            "context_id": ctx,
            "kind": "proposition",
            "text": text,
            "created_at": "2026-03-02T09:00:00Z",
            "embedding": [1.0, float(n), 0.0, 0.5],
            "mentions": [
                {"entity_id": f"{ctx}:person/alice", "name": "Alice", "type": "Person"},
                # p-0 carries the graph's alice-payments edge (fake_container), so it names both ends.
                *(
                    [{"entity_id": f"{ctx}:team/payments", "name": "Payments", "type": "Team"}]
                    if n == 0
                    else []
                ),
            ],
        }
    )
    for ctx in ("acme", "globex")
    for n, text in enumerate(["Alice Chen leads the Payments team", "Bob runs the ledger"])
]
CHUNK = Item.model_validate(
    {
        "id": "acme:doc-1#c1",
        "context_id": "acme",
        "kind": "document",
        "text": "Ledger design notes: Bob runs the ledger since 2025.",
        "created_at": "2026-01-05T09:00:00Z",
        "valid_from": "2025-01-01T00:00:00Z",
        "embedding": [0.5, 1.0, 0.0, 0.5],
        "mentions": [{"entity_id": "acme:person/alice", "name": "Alice", "type": "Person"}],
        "grounding": [
            {"chunk_id": "acme:doc-1#c1", "uri": "s3://acme-docs/ledger.md", "start": 0, "end": 20}
        ],
        "metadata": {"team": "ledger", "uri": "https://wiki.acme/ledger", "notes": "x" * 3000},
    }
)
"""A document chunk: a '#' in its id, a grounding span, validity and more metadata than a hit carries."""


@dataclass
class FakeFunctions:
    container: Container

    def call(self, function: str, event: dict[str, Any], timeout_ms: int = 15_000) -> dict[str, Any]:
        context = LambdaContext(function_name=function, timeout_ms=timeout_ms)
        return handler_module(function, REPO / "functions").lambda_handler(event, context)

    def api(self, function: str, event: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, decoded body and headers of an API Gateway answer."""
        result = self.call(function, event)
        headers = {**(result.get("headers") or {})}
        for name, values in (result.get("multiValueHeaders") or {}).items():
            headers.setdefault(name, values[-1])
        return result["statusCode"], json.loads(result["body"] or "null"), headers


KNOWLEDGE_BASES = {"AcmeKb0001": "acme", "GlobexKb01": "globex"}
"""The knowledge base ids the fake deployment serves its contexts as (``retrieval knowledge-base``)."""
ACME_KB, GLOBEX_KB = KNOWLEDGE_BASES


class FakeKnowledgeBases:
    """The ``KnowledgeBaseDirectory`` port over a dict."""

    def __init__(self, served: dict[str, str]) -> None:
        self.served = served
        self.lookups: list[str] = []

    def context_of(self, knowledge_base_id: str) -> str | None:
        self.lookups.append(knowledge_base_id)
        return self.served.get(knowledge_base_id)

    def granted_to(self, principal_arn: str) -> tuple[str, ...]:
        """Every id served to a dev user named after its context (``arn:...:user/dev-acme``)."""
        name = principal_arn.rsplit("/", 1)[-1]
        return tuple(kb for kb, context in self.served.items() if name.endswith(f"-{context}"))


def fake_container(settings: Settings | None = None, **overrides: Any) -> Container:
    """The functions' container over the fakes; ``settings`` and ``overrides`` change what a test needs."""
    graph = FakeGraph()
    graph.link("acme", "acme:person/alice", "acme:team/payments", "acme:p-0")
    lineage = FakeLineage()
    lineage.add("acme", "acme:p-1", source_ids=["acme:p-0"])
    lineage.add("acme", CHUNK.id, kind=CHUNK.kind)
    store = InMemoryStore([*ITEMS, CHUNK])
    return Container(
        settings or Settings(),
        overrides={
            "store": store,
            "edges": graph,
            "lineage": lineage,
            "embedder": FixedEmbedder({}, DIMENSION),
            "retrieval_config": preset("default"),
            "policy": RetrievalPolicy(InMemorySessionStore(), PolicyConfig()),
            "knowledge_bases": FakeKnowledgeBases(KNOWLEDGE_BASES),
            "document_statuses": MemoryDocumentStatuses(),
            "index_generation": lambda context_id: "memory",
            **overrides,
        },
    )


@contextmanager
def fake_functions(settings: Settings | None = None, **overrides: Any) -> Iterator[FakeFunctions]:
    composed = fake_container(settings, **overrides)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in lambda_environment("retrieve").items():
            patch.setenv(key, value)
        with bootstrap.use(composed):
            yield FakeFunctions(composed)
