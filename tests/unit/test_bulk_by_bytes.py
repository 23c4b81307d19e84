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
