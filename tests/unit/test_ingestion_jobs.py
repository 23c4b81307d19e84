"""Ingestion jobs' decisions over in-memory ports (the real stack runs them in
tests/integration/test_bedrock_agent.py): a stop requested while a job runs ends it between two files;
a run short of time hands the rest on from the last file it finished; one job at a time; a launch that
fails leaves the job FAILED, not holding the next one off."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from retrieval_core.documents.listing import ListingTokens
from retrieval_core.documents.status import DocumentStatus
from retrieval_core.knowledge_bases.catalog import ServedKnowledgeBase
from retrieval_core.knowledge_bases.jobs import IngestionJobConflictError, IngestionJobs, new_job_id
from retrieval_core.knowledge_bases.list_tokens import ListTokens
from retrieval_core.knowledge_bases.requests import StartJobRequest
from retrieval_core.models.ingest import ObjectRef

SERVED = ServedKnowledgeBase("ACMEKB0001", "acme")
FILES = [f"contexts/acme/f{n}.txt" for n in range(5)]


class MemoryRecords:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}

    def get(self, kind: str, context_id: str, key: str) -> dict[str, Any] | None:
        return self.rows.get((kind, context_id), {}).get(key)

    def put(self, kind: str, context_id: str, key: str, record: dict[str, Any], *, new: bool = False) -> bool:
        rows = self.rows.setdefault((kind, context_id), {})
        if new and key in rows:
            return False
        rows[key] = dict(record)
        return True

    def page(
        self, kind: str, context_id: str, *, limit: int, after: str | None, descending: bool
    ) -> tuple[list[dict[str, Any]], str | None]:
        keys = sorted(self.rows.get((kind, context_id), {}), reverse=descending)
        return [self.rows[(kind, context_id)][k] for k in keys[:limit]], None


class Bucket:
    def __init__(self, keys: list[str]) -> None:
        self.stored = set(keys)

    def keys(self, bucket: str, prefix: str, *, after: str | None = None) -> Iterator[str]:
        yield from (k for k in sorted(self.stored) if k.startswith(prefix) and (after is None or k > after))

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        return b"x" if ref.key in self.stored else None

    def write_document(self, bucket: str, key: str, data: bytes, content_type: str) -> None:
        self.stored.add(key)

    def delete(self, bucket: str, key: str) -> None:
        self.stored.discard(key)


class Files:
    """The pipeline: each file indexed; ``on_file`` runs after each (to request a stop mid-job)."""

    def __init__(self, statuses: MemoryDocumentStatuses) -> None:
        self.statuses = statuses
        self.applied: list[str] = []
        self.on_file: Any = None

    def created(self, ref: ObjectRef) -> DocumentStatus:
        self.applied.append(ref.key)
        status = DocumentStatus(key=ref.key.split("/", 2)[2], status="indexed", chunks=1, updated_at="x")
        self.statuses.put("acme", status)
        if self.on_file is not None:
            self.on_file()
        return status

    def removed(self, ref: ObjectRef) -> DocumentStatus:
        status = DocumentStatus(key=ref.key.split("/", 2)[2], status="deleted", updated_at="x")
        self.statuses.put("acme", status)
        return status


@pytest.fixture
def parts() -> tuple[IngestionJobs, MemoryRecords, Files, list[dict[str, Any]]]:
    records, statuses = MemoryRecords(), MemoryDocumentStatuses()
    files, launched = Files(statuses), list[dict[str, Any]]()
    jobs = IngestionJobs(
        records=records,
        statuses=statuses,
        objects=Bucket(FILES),
        files=lambda: files,  # type: ignore[arg-type,return-value]
        launch=launched.append,
        tokens=ListTokens(ListingTokens(b"k" * 32)),
        bucket="b",
        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
    )
    return jobs, records, files, launched


def test_a_stop_ends_the_job_between_two_files(parts: Any) -> None:
    jobs, _, files, launched = parts
    job = jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())
    files.on_file = lambda: jobs.stop(SERVED, "S3CONTEXTS", job["ingestionJobId"])
    jobs.run(**launched[0])
    done = jobs.get(SERVED, "S3CONTEXTS", job["ingestionJobId"])
    assert done["status"] == "STOPPED" and files.applied == FILES[:1]
    assert done["statistics"]["numberOfDocumentsScanned"] == 1


def test_a_run_short_of_time_hands_the_rest_on_from_the_last_file_it_finished(parts: Any) -> None:
    jobs, _, files, launched = parts
    job = jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())
    clock = iter([100.0, 100.0, 10.0])  # two files, then under a minute left
    handed: list[dict[str, Any]] = []
    jobs.run(**launched[0], remaining=lambda: next(clock), hand_off=handed.append)
    assert handed == [{"context_id": "acme", "job_id": job["ingestionJobId"], "after": FILES[1]}]
    assert len(launched) == 1  # handed to the run's own hand-off, not launched as a new job
    assert jobs.get(SERVED, "S3CONTEXTS", job["ingestionJobId"])["status"] == "IN_PROGRESS"
    jobs.run(**handed[0])
    done = jobs.get(SERVED, "S3CONTEXTS", job["ingestionJobId"])
    assert files.applied == FILES and done["status"] == "COMPLETE"
    assert done["statistics"]["numberOfNewDocumentsIndexed"] == 5


def test_one_job_at_a_time_and_a_failed_launch_holds_nothing_off(parts: Any) -> None:
    jobs, records, _, launched = parts
    jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())
    with pytest.raises(IngestionJobConflictError):
        jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())
    jobs.run(**launched[0])

    def fail(_: dict[str, Any]) -> None:
        raise RuntimeError("no lambda")

    jobs._launch = fail
    with pytest.raises(RuntimeError):
        jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())
    jobs_now, _ = records.page("jobs", "acme", limit=10, after=None, descending=True)
    assert sorted(job["status"] for job in jobs_now) == ["COMPLETE", "FAILED"]
    jobs._launch = launched.append
    assert jobs.start(SERVED, "S3CONTEXTS", StartJobRequest())["status"] == "STARTING"


def test_job_ids_are_bedrock_s_shape_and_sort_as_jobs_started() -> None:
    earlier, later = new_job_id(1_800_000_000.0), new_job_id(1_800_000_000.001)
    assert len(earlier) == len(later) == 10 and earlier.isalnum() and earlier[:8] < later[:8]
