"""A document's status as bedrock-agent answers it when its record is ``stale`` (its chunks were in an
index that is no longer the context's): ``PENDING`` with the reason, in Get and List alike, not
``INDEXED`` (the first version said INDEXED: nothing answered for it). Over in-memory ports; the
``stale`` listing itself is tested on the real stack (tests/integration/test_stale_statuses.py)."""

from __future__ import annotations

import pytest
from fakes_documents import MemoryDocumentStatuses
from retrieval_core.documents.listing import ListingTokens
from retrieval_core.documents.status import DocumentStatus
from retrieval_core.knowledge_bases.catalog import CUSTOM_DATA_SOURCE_ID, CUSTOM_FOLDER, ServedKnowledgeBase
from retrieval_core.knowledge_bases.documents import STALE_REASON, KnowledgeBaseDocuments, encode_id
from retrieval_core.knowledge_bases.list_tokens import ListTokens
from retrieval_core.knowledge_bases.requests import DocumentIdentifier
from test_ingestion_jobs import Bucket, MemoryRecords

SERVED = ServedKnowledgeBase("ACMEKB0001", "acme")


class NoEvents:
    def apply(self, context_id: str, keys: object, *, removed: bool, notified: bool) -> list[None]:
        raise AssertionError("reading a status applies nothing")


def documents(now: str) -> KnowledgeBaseDocuments:
    statuses = MemoryDocumentStatuses()
    for name, status in (("kept", "indexed"), ("broken", "failed")):
        key = f"{CUSTOM_FOLDER}{encode_id(name)}.txt"
        statuses.put(
            "acme",
            DocumentStatus(
                key=key, status=status, chunks=1, updated_at="2026-12-06T00:00:00Z", generation="g1"
            ),
        )
    return KnowledgeBaseDocuments(
        objects=Bucket([]),
        statuses=statuses,
        events=NoEvents(),
        records=MemoryRecords(),
        tokens=ListTokens(ListingTokens(b"k" * 32)),
        bucket="ingest",
        generation=lambda context_id: now,
    )


@pytest.mark.parametrize(("now", "expected"), [("g1", "INDEXED"), ("g2", "PENDING")])
def test_a_record_of_a_replaced_index_is_pending_with_its_reason_in_get_and_list(
    now: str, expected: str
) -> None:
    plane = documents(now)
    identifiers = [
        DocumentIdentifier.model_validate({"dataSourceType": "CUSTOM", "custom": {"id": name}})
        for name in ("kept", "broken", "missing")
    ]
    got = plane.get(SERVED, CUSTOM_DATA_SOURCE_ID, identifiers)
    assert [d["status"] for d in got] == [expected, "FAILED", "NOT_FOUND"]
    assert ("statusReason" in got[0]) == (expected == "PENDING")
    if expected == "PENDING":
        assert got[0]["statusReason"] == STALE_REASON
    listed, _ = plane.listing(SERVED, CUSTOM_DATA_SOURCE_ID, None, None)
    assert {d["identifier"]["custom"]["id"]: d["status"] for d in listed} == {
        "broken": "FAILED",
        "kept": expected,
    }
