"""The real ingest handler (functions/ingest/app.py), in-process, over a Container whose every adapter
is an in-memory fake: an S3 event in, the statuses and reports it returns out, and what the fakes then
hold. Nothing reaches a backend (the settings point at ports nothing listens on)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects
from fakes_writes import MemoryItemWriter, MemoryLineageWriter
from retrieval_core import bootstrap
from retrieval_core.bootstrap import Container
from retrieval_core.config import Settings
from retrieval_core.ingest.objects import report_key
from retrieval_core.ports import NamedEntity
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module, lambda_environment

from tests.unit.test_document_units import Embedder, Vectors

REPO = Path(__file__).resolve().parents[2]
BUCKET = "retrieval-ingest"
LINES_KEY, NOTE_KEY = "contexts/acme/batch.jsonl", "contexts/acme/notes/ledger.md"
NOTE_CHUNK = "acme:doc/notes/ledger.md#0000"


def _line(item_id: str, text: str) -> str:
    return json.dumps(
        {"id": item_id, "kind": "proposition", "text": text, "created_at": "2026-03-02T09:00:00Z"}
    )


class NoNames:
    """An empty entity dictionary, and no chunk naming any title (``EntityDictionary``, ``NamingChunks``)."""

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        return []

    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        return [[] for _ in pages]


@dataclass
class Deployment:
    objects: MemoryObjects
    items: MemoryItemWriter
    lineage: MemoryLineageWriter
    statuses: MemoryDocumentStatuses

    def invoke(self, *records: dict[str, Any]) -> dict[str, Any]:
        handler = handler_module("ingest", REPO / "functions").lambda_handler
        result: dict[str, Any] = handler({"Records": list(records)}, LambdaContext(function_name="ingest"))
        return result


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    fakes = Deployment(MemoryObjects(), MemoryItemWriter(), MemoryLineageWriter(), MemoryDocumentStatuses())
    unreachable = Settings(opensearch_endpoint="http://127.0.0.1:9", dynamodb_endpoint="http://127.0.0.1:9")
    overrides = {
        "objects": fakes.objects,
        "part_queue": None,
        "item_writer": fakes.items,
        "lineage_writer": fakes.lineage,
        "key_budget": None,
        "embedder": Embedder(),
        "document_statuses": fakes.statuses,
        "chunk_vectors": Vectors(),
        "entity_dictionary": NoNames(),
        "chunk_naming": NoNames(),
        "field_declarations": None,
        "entity_extractor": None,
        "index_generation": lambda context_id: "memory",
    }
    with pytest.MonkeyPatch.context() as patch:
        for key, value in lambda_environment("ingest").items():
            patch.setenv(key, value)
        with bootstrap.use(Container(unreachable, overrides=overrides)):
            yield fakes


def _s3_record(event_name: str, key: str, sequencer: str) -> dict[str, Any]:
    return {
        "eventSource": "aws:s3",
        "eventName": event_name,
        "s3": {"bucket": {"name": BUCKET}, "object": {"key": key, "sequencer": sequencer}},
    }


def test_an_s3_event_loads_a_jsonl_object_and_indexes_a_document_in_its_context(
    deployment: Deployment,
) -> None:
    lines = [_line("acme:p-1", "Alice leads Payments"), "not json", _line("acme:p-2", "Bob runs the ledger")]
    deployment.objects.blobs[(BUCKET, LINES_KEY)] = "\n".join(lines).encode()
    deployment.objects.blobs[(BUCKET, NOTE_KEY)] = b"# Ledger\n\nBob runs the ledger since 2025."

    result = deployment.invoke(
        _s3_record("ObjectCreated:Put", LINES_KEY, "01"), _s3_record("ObjectCreated:Put", NOTE_KEY, "02")
    )

    assert result["statusCode"] == 200
    lines, note = result["body"]["objects"]
    report = lines["report"]
    assert (lines["key"], lines["parts_loaded"], report["status"], report["context_id"]) == (
        LINES_KEY,
        [0],
        "complete",
        "acme",
    )
    assert (report["loaded"], report["rejected"], report["version_id"]) == (2, 1, "v1")
    assert [r["line"] for r in report["rejected_lines"]] == [2]
    assert deployment.objects.documents[(BUCKET, report_key(LINES_KEY))] == report
    assert note["report"] is None
    assert (note["document"]["key"], note["document"]["status"], note["document"]["chunks"]) == (
        "notes/ledger.md",
        "indexed",
        1,
    )
    written = {("acme", "acme:p-1"), ("acme", "acme:p-2"), ("acme", NOTE_CHUNK)}
    assert set(deployment.items.documents) == written and set(deployment.lineage.cards) == written
    chunk, vector = deployment.items.documents[("acme", NOTE_CHUNK)]
    assert chunk.grounding[0].uri == f"s3://{BUCKET}/{NOTE_KEY}" and vector == [1.0, 0.0]
    assert deployment.items.refreshed == {"acme"}
    assert deployment.statuses.get("acme", "notes/ledger.md").status == "indexed"  # type: ignore[union-attr]


def test_a_removed_document_takes_its_chunks_and_a_foreign_key_is_rejected(deployment: Deployment) -> None:
    deployment.objects.blobs[(BUCKET, NOTE_KEY)] = b"# Ledger\n\nBob runs the ledger since 2025."
    deployment.invoke(_s3_record("ObjectCreated:Put", NOTE_KEY, "01"))
    del deployment.objects.blobs[(BUCKET, NOTE_KEY)]

    result = deployment.invoke(
        _s3_record("ObjectRemoved:Delete", NOTE_KEY, "02"),
        _s3_record("ObjectCreated:Put", "stray.jsonl", "03"),
    )

    removed, stray = result["body"]["objects"]
    assert (removed["document"]["status"], removed["document"]["chunks"]) == ("deleted", 0)
    assert ("acme", NOTE_CHUNK) not in deployment.items.documents and not deployment.lineage.cards
    assert (stray["report"]["status"], stray["report"]["context_id"]) == ("rejected", None)
    assert stray["report"]["reason"].startswith("the key must start with contexts/<context_id>/")
