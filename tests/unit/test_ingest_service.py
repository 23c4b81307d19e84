"""The ingest use case with in-memory fakes behind its ports: queuing, part order and line numbers,
reuse on replay, and what an incomplete or missing part does to the report."""

from __future__ import annotations

import io
from typing import Any, BinaryIO

import pytest
from retrieval_core.ingest.errors import IngestIncompleteError
from retrieval_core.ingest.objects import ObjectRef, report_key
from retrieval_core.ingest.service import IngestService
from retrieval_core.ingest.tasks import PartTask
from retrieval_core.loading.loader import LoadReport
from retrieval_core.loading.parse import LineError
from retrieval_core.models.limits import StorageLimits

KEY = "contexts/acme/batch.jsonl"


class MemoryObjects:
    def __init__(self) -> None:
        self.blobs: dict[tuple[str, str], bytes] = {}
        self.documents: dict[tuple[str, str], dict[str, Any]] = {}

    def identify(self, ref: ObjectRef) -> ObjectRef:
        return ObjectRef(ref.bucket, ref.key, "v1", '"etag"')

    def open(self, ref: ObjectRef, start: int = 0, end: int | None = None) -> BinaryIO:
        return io.BytesIO(self.blobs[(ref.bucket, ref.key)][start:end])

    def read_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        return self.documents.get((bucket, key))

    def write_json(self, bucket: str, key: str, document: dict[str, Any]) -> None:
        self.documents[(bucket, key)] = document

    def write_bytes(self, bucket: str, key: str, data: bytes) -> None:
        self.blobs[(bucket, key)] = data


class RecordingQueue:
    def __init__(self) -> None:
        self.tasks: list[PartTask] = []

    def send(self, tasks: list[PartTask]) -> None:
        self.tasks += tasks


class ScriptedLoader:
    """Loads nothing; reports each non-blank line as loaded, except lines it is told to fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[bytes], str | None]] = []
        self.unwritten_lines: set[int] = set()

    def load_lines(
        self, lines: list[bytes], *, context_id: str | None = None, first_line: int = 1
    ) -> LoadReport:
        lines = list(lines)  # parts arrive as a stream of lines
        self.calls.append((first_line, lines, context_id))
        report = LoadReport()
        for number, line in enumerate(lines, start=first_line):
            if line == b"bad":
                report.errors.append(LineError(number, "(line)", "not valid JSON"))
            elif number in self.unwritten_lines:
                report.unwritten.append(f"acme:p-{number}")
            else:
                report.loaded += 1
        return report


@pytest.fixture
def parts() -> tuple[IngestService, MemoryObjects, RecordingQueue, ScriptedLoader]:
    objects, queue, loader = MemoryObjects(), RecordingQueue(), ScriptedLoader()
    objects.blobs[("b", KEY)] = b"l1\nl2\nbad\nl4\nl5\n"
    service = IngestService(
        loader=loader,  # type: ignore[arg-type]
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
