"""The ingest use case with in-memory fakes behind its ports: queuing, part order and line numbers,
reuse on replay, and what an incomplete or missing part does to the report."""

from __future__ import annotations

from typing import Any

import pytest
from fakes_ingest import MemoryObjects, RecordingQueue, ScriptedLoader
from retrieval_core.ingest.errors import IngestIncompleteError
from retrieval_core.ingest.objects import report_key
from retrieval_core.ingest.service import IngestService
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.limits import StorageLimits

KEY = "contexts/acme/batch.jsonl"


@pytest.fixture
def parts() -> tuple[IngestService, MemoryObjects, RecordingQueue, ScriptedLoader]:
    objects, queue, loader = MemoryObjects(), RecordingQueue(), ScriptedLoader()
    objects.blobs[("b", KEY)] = b"l1\nl2\nbad\nl4\nl5\n"
    service = IngestService(
        loader=loader,
        objects=objects,
        queue=queue,
        part_lines=2,
        limits=StorageLimits(part_min_bytes=0),
    )
    return service, objects, queue, loader


def test_a_large_object_is_queued_in_parts_that_load_in_order_with_their_line_numbers(parts: Any) -> None:
    service, objects, queue, loader = parts
    outcome = service.object_created(ObjectRef("b", KEY, "v1"))
    assert (outcome.queued_parts, loader.calls) == (3, [])
    assert [(t.part.first_line, t.part.lines, t.parts) for t in queue.tasks] == [
        (1, 2, 3),
        (3, 2, 3),
        (5, 1, 3),
    ]
    reports = [service.part(task).report for task in queue.tasks]
    assert reports[:2] == [None, None]
    assert [(first, lines) for first, lines, _ in loader.calls] == [
        (1, [b"l1", b"l2"]),
        (3, [b"bad", b"l4"]),
        (5, [b"l5"]),
    ]
    assert {context for _, _, context in loader.calls} == {"acme"}
    final = objects.documents[("b", report_key(KEY))]
    assert final == reports[2].model_dump(mode="json")
    assert (final["status"], final["lines"], final["loaded"], final["rejected"]) == ("complete", 5, 4, 1)
    assert final["rejected_lines"] == [{"line": 3, "field": "(line)", "reason": "not valid JSON"}]


def test_a_replayed_part_reuses_its_record_and_loads_nothing(parts: Any) -> None:
    service, _, queue, loader = parts
    service.object_created(ObjectRef("b", KEY, "v1"))
    for task in queue.tasks:
        service.part(task)
    loader.calls.clear()
    again = [service.part(task) for task in queue.tasks]
    assert loader.calls == [] and sum(o.reused_parts for o in again) == 3


def test_unwritten_items_fail_the_part_and_its_retry_completes(parts: Any) -> None:
    service, objects, queue, loader = parts
    service.object_created(ObjectRef("b", KEY, "v1"))
    loader.unwritten_lines = {5}
    service.part(queue.tasks[0])
    service.part(queue.tasks[1])
    with pytest.raises(IngestIncompleteError):
        service.part(queue.tasks[2])
    report = objects.documents[("b", report_key(KEY))]
    assert (report["status"], report["unwritten"], report["unwritten_ids"]) == ("incomplete", 1, ["acme:p-5"])
    loader.unwritten_lines = set()
    service.part(queue.tasks[2])  # the retry loads the part again (its record was incomplete)
    assert objects.documents[("b", report_key(KEY))]["status"] == "complete"


def test_a_part_that_never_ran_is_named_in_the_report(parts: Any) -> None:
    service, objects, queue, _ = parts
    service.object_created(ObjectRef("b", KEY, "v1"))
    service.part(queue.tasks[0])
    service.part(queue.tasks[2])  # part 1 went to the dead-letter queue
    report = objects.documents[("b", report_key(KEY))]
    assert (report["status"], report["missing_parts"], report["loaded"]) == ("incomplete", [1], 3)


def test_a_small_object_loads_inline_and_a_hand_written_event_is_pinned(parts: Any) -> None:
    service, objects, queue, _loader = parts
    objects.blobs[("b", "contexts/acme/one.jsonl")] = b"l1\n"
    outcome = service.object_created(ObjectRef("b", "contexts/acme/one.jsonl"))
    assert queue.tasks == [] and outcome.report is not None
    assert (outcome.report.version_id, outcome.report.loaded) == ("v1", 1)
