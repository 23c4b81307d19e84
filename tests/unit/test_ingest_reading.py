"""Planning objects into parts of whole lines and reading parts back, plain and gzip; keys and events."""

from __future__ import annotations

import gzip
import io
import json

import pytest
from retrieval_core.ingest.errors import IngestEventError
from retrieval_core.ingest.events import ObjectRemoved, work_of
from retrieval_core.ingest.objects import context_of_key, part_report_key, report_key
from retrieval_core.ingest.reading import plan_parts, read_part
from retrieval_core.models.ingest import ObjectRef, PartTask
from retrieval_core.models.limits import StorageLimits

LINE_PARTS = StorageLimits(part_min_bytes=0)
"""Parts cut by lines alone, to check boundaries on small objects."""


def lines_by_part(content: bytes, part_lines: int, compressed: bool = False) -> list[tuple[int, list[bytes]]]:
    stored = gzip.compress(content) if compressed else content
    written: dict[int, bytes] = {}
    plan = plan_parts(io.BytesIO(stored), part_lines, write_part=written.__setitem__, limits=LINE_PARTS)
    assert plan.gzip is compressed
    assert bool(written) is compressed  # a gzip object is split into plain part objects, once
    read: list[tuple[int, list[bytes]]] = []
    for part in plan.parts:
        data = written[part.index] if compressed else stored[part.start : part.end]
        lines = list(read_part(io.BytesIO(data), from_part_object=compressed))
        kept = [line for line in lines if isinstance(line, bytes)]
        assert len(lines) == part.lines and kept == lines  # no line here is over the limit
        read.append((part.first_line, kept))
    assert plan.lines == sum(part.lines for part in plan.parts)
    return read


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("part_lines", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("ending", [b"\n", b""])
def test_parts_cover_every_line_once_in_order_with_their_numbers(
    compressed: bool, part_lines: int, ending: bytes
) -> None:
    lines = [f'{{"n": {n}, "pad": "{"x" * (n * 37 % 500)}"}}'.encode() for n in range(1, 8)]
    lines.insert(3, b"")  # a blank line still counts
    parts = lines_by_part(b"\n".join(lines) + ending, part_lines, compressed)
    assert [line for _, block in parts for line in block] == lines
    assert [first for first, _ in parts] == list(range(1, len(lines) + 1, part_lines))


def test_a_part_boundary_inside_a_read_chunk_and_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from retrieval_core.loading import lines as reading

    monkeypatch.setattr(reading, "READ_BYTES", 5)  # lines straddle every block
    lines = [b"alpha", b"be", b"gamma-delta-epsilon", b"z"]
    parts = lines_by_part(b"\n".join(lines) + b"\n", 2)
    assert parts == [(1, lines[:2]), (3, lines[2:])]


def test_an_empty_object_has_no_parts() -> None:
    plan = plan_parts(io.BytesIO(b""), 10)
    assert (plan.lines, plan.parts) == (0, [])


@pytest.mark.parametrize(
    ("key", "context"),
    [
        ("contexts/acme/a.jsonl", "acme"),
        ("contexts/acme/2026/03/a.jsonl.gz", "acme"),
        ("contexts/ACME/a.jsonl", None),
        ("contexts/acme", None),
        ("contexts/acme/", None),
        ("reports/contexts/acme/a.jsonl.json", None),
        ("contexts//a.jsonl", None),
    ],
)
def test_the_context_comes_from_the_key_prefix(key: str, context: str | None) -> None:
    assert context_of_key(key) == context


def test_reports_sit_beside_the_key_and_parts_per_upload() -> None:
    assert report_key("contexts/acme/a.jsonl") == "reports/contexts/acme/a.jsonl.json"
    ref = ObjectRef("b", "contexts/acme/a.jsonl", version_id="v2", etag='"e"')
    assert part_report_key(ref, 3) == "parts/contexts/acme/a.jsonl/v2/000003.json"
    assert ObjectRef("b", "k", etag='"e1"').revision == "e1"


def test_s3_keys_are_url_decoded_removals_kept_and_other_notifications_ignored() -> None:
    obj = {"key": "contexts/acme/my+file%3A1.md", "eTag": "e", "sequencer": "0A1B"}
    record = {
        "eventSource": "aws:s3",
        "eventName": "ObjectCreated:Put",
        "s3": {"bucket": {"name": "b"}, "object": obj},
    }
    removed = record | {"eventName": "ObjectRemoved:Delete"}
    restored = record | {"eventName": "ObjectRestore:Completed"}
    ref = ObjectRef("b", "contexts/acme/my file:1.md", None, "e", "0A1B")
    assert work_of({"Records": [record, removed, restored]}) == [ref, ObjectRemoved(ref)]


def test_queued_parts_round_trip_and_malformed_events_are_refused() -> None:
    task = PartTask.model_validate(
        {
            "bucket": "b",
            "key": "contexts/acme/a.jsonl",
            "parts": 2,
            "total_lines": 3,
            "part": {"index": 1, "first_line": 3, "lines": 1, "start": 10, "end": 20},
        }
    )
    assert work_of({"Records": [{"eventSource": "aws:sqs", "body": task.model_dump_json()}]}) == [task]
    for event in ({}, {"Records": []}, {"Records": [{"eventSource": "aws:sqs", "body": json.dumps({})}]}):
        with pytest.raises(IngestEventError):
            work_of(event)


@pytest.mark.parametrize("compressed", [False, True])
def test_parts_are_bounded_by_bytes_and_a_huge_line_is_never_held(compressed: bool) -> None:
    """Issue 27, case 5: blank lines cannot multiply parts, a part stops at its most bytes, and a line
    past the line limit is not copied into a gzip object's part objects (nor read whole from a plain one)."""
    from retrieval_core.loading.lines import OversizedLine

    limits = StorageLimits(part_min_bytes=100, part_max_bytes=1000, line_bytes=50)
    content = b"\n" * 950 + b'{"a": 1}\n' + b"x" * 5000 + b"\n" + b'{"b": 2}'
    stored = gzip.compress(content) if compressed else content
    written: dict[int, bytes] = {}
    plan = plan_parts(io.BytesIO(stored), 2, write_part=written.__setitem__, limits=limits)
    assert len(plan.parts) <= -(-len(content) // limits.part_min_bytes)
    assert plan.lines == 953 and sum(p.lines for p in plan.parts) == 953
    assert all(len(data) <= limits.part_max_bytes + limits.line_bytes for data in written.values())
    read: list[bytes | OversizedLine] = []
    for part in plan.parts:
        data = written[part.index] if compressed else stored[part.start : part.end]
        read += list(read_part(io.BytesIO(data), from_part_object=compressed, line_bytes=limits.line_bytes))
    assert read[950:] == [b'{"a": 1}', OversizedLine(5000), b'{"b": 2}']
    assert read[:950] == [b""] * 950
