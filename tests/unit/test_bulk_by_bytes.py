"""Issue 51: a chunk's documents go to OpenSearch in ``_bulk`` bodies of at most ``MAX_BULK_BYTES``
(OpenSearch Service refuses bodies over 10 MiB on its smaller instance types), in order, each refusal
still named by its item."""

from __future__ import annotations

import json
from typing import Any

from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.writer import MAX_BULK_BYTES, bulk_index, by_bytes


class RecordingBulk:
    """Answers every ``_bulk``, refusing the documents whose id ends in ``-bad``; keeps the bodies."""

    def __init__(self) -> None:
        self.bodies: list[str] = []

    def bulk(self, body: str, request_timeout: float) -> dict[str, Any]:
        self.bodies.append(body)
        actions = [json.loads(line) for line in body.splitlines()[::2]]
        items = []
        for action in actions:
            id_ = action["index"]["_id"]
            error = {"type": "mapper_parsing_exception"} if id_.endswith("-bad") else None
            items.append({"index": {"_id": id_, "status": 400 if error else 201, "error": error}})
        return {"errors": any(item["index"]["error"] for item in items), "items": items}


def test_groups_keep_order_and_stay_within_the_limit() -> None:
    actions = [(f"a{n}", "x" * (n % 7 * 10)) for n in range(200)]
    groups = by_bytes(actions, 120)
    assert [action for group in groups for action in group] == actions
    assert all(sum(len(lines) + 1 for _, lines in group) <= 120 for group in groups)
    assert len(groups) > 1
    huge = ("big", "y" * 500)
    assert by_bytes([("s", "z"), huge, ("t", "z")], 120) == [[("s", "z")], [huge], [("t", "z")]]
    assert by_bytes([], 120) == []


def test_a_chunk_past_the_limit_is_several_bulks_with_every_refusal_named() -> None:
    text = "w" * 200_000  # with its vector, a long chunk's document is about a fifth of a MiB
    documents = [
        {"id": f"acme:d-{n}{'-bad' if n in (3, 40) else ''}", "context_id": "acme", "text": text}
        for n in range(60)
    ]
    client = RecordingBulk()
    refusals = bulk_index(client, IndexLayout("retrieval"), documents)  # type: ignore[arg-type]
    assert len(client.bodies) > 1
    assert all(len(body.encode()) <= MAX_BULK_BYTES for body in client.bodies)
    sent = [json.loads(line)["index"]["_id"] for body in client.bodies for line in body.splitlines()[::2]]
    assert sent == [doc["id"] for doc in documents]
    assert [refusal.item_id for refusal in refusals] == ["acme:d-3-bad", "acme:d-40-bad"]


class BusyNode:
    """Turns away the first ``busy`` sends of each document with a 429 (its write queue full)."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.sent: dict[str, int] = {}

    def bulk(self, body: str, request_timeout: float) -> dict[str, Any]:
        items = []
        for line in body.splitlines()[::2]:
            id_ = json.loads(line)["index"]["_id"]
            self.sent[id_] = self.sent.get(id_, 0) + 1
            refused = id_.endswith("-hot") and self.sent[id_] <= self.busy
            error = {"type": "es_rejected_execution_exception"} if refused else None
            items.append({"index": {"_id": id_, "status": 429 if refused else 201, "error": error}})
        return {"errors": any(item["index"]["error"] for item in items), "items": items}


def test_a_document_a_busy_node_turns_away_is_sent_again_alone_with_backoff(monkeypatch: Any) -> None:
    from retrieval_core.adapters.opensearch import writer

    pauses: list[float] = []
    monkeypatch.setattr(writer.time, "sleep", pauses.append)
    documents = [{"id": f"acme:d-{n}{'-hot' if n == 2 else ''}", "context_id": "acme"} for n in range(4)]
    client = BusyNode(busy=3)
    assert bulk_index(client, IndexLayout("retrieval"), documents) == []  # type: ignore[arg-type]
    assert client.sent == {"acme:d-0": 1, "acme:d-1": 1, "acme:d-2-hot": 4, "acme:d-3": 1}
    assert pauses == [0.05, 0.1, 0.2]


def test_a_node_busy_past_the_deadline_leaves_the_document_reported_not_written(monkeypatch: Any) -> None:
    from retrieval_core.adapters.opensearch import writer

    now = [0.0]
    monkeypatch.setattr(writer.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(writer.time, "sleep", lambda pause: now.__setitem__(0, now[0] + pause))
    client = BusyNode(busy=10_000)
    (refusal,) = bulk_index(client, IndexLayout("retrieval"), [{"id": "acme:x-hot", "context_id": "acme"}])  # type: ignore[arg-type]
    assert refusal.item_id == "acme:x-hot" and not refusal.final  # not final: a retry may write it
    assert now[0] >= writer.BLOCKED_RETRY_SECONDS and 10 < client.sent["acme:x-hot"] < 100
