"""The ingest use case: an object notification plans the object into parts; each part is loaded in the
object's context and leaves a part report; the last part merges them into ``reports/<key>.json``.

A one-part object (or any object when no queue is configured) is loaded in the same invocation; a
larger one is queued part by part, in order, one invocation per part. A part whose complete report
already exists for this upload is not loaded again, so a replayed event or a redelivered message
finishes quickly and changes nothing, and a retry after a crash resumes after the last finished part.
Parts that failed leave an incomplete report and raise ``IngestIncompleteError`` so the platform retries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, Literal

from ..models.ingest import ObjectRef, PartTask
from ..models.limits import LIMITS, StorageLimits
from .document_files import is_document_key
from .errors import IngestIncompleteError
from .objects import context_of_key, part_object_key, part_report_key, report_key
from .ports import LineLoader, ObjectStore, PartQueue
from .reading import plan_parts, read_part
from .report import IngestReport, PartReport

if TYPE_CHECKING:
    from ..documents.status import DocumentStatus
    from .document_files import DocumentFiles


@dataclass
class IngestOutcome:
    """What one invocation did: the parts it loaded (for metrics), queued or reused, and the final report
    if this invocation wrote it."""

    key: str
    loaded_parts: list[PartReport] = field(default_factory=list)
    reused_parts: int = 0
    queued_parts: int = 0
    report: IngestReport | None = None
    document: DocumentStatus | None = None
    """A document's (or its sidecar's) event: the file's status after it."""


class IngestService:
    def __init__(
        self,
        *,
        loader: LineLoader,
        objects: ObjectStore,
        queue: PartQueue | None,
        part_lines: int,
        limits: StorageLimits = LIMITS,
        documents: DocumentFiles | None = None,
    ) -> None:
        self._loader = loader
        self._objects = objects
        self._queue = queue
        self._part_lines = part_lines
        self._limits = limits
        self._documents = documents

    def object_created(self, ref: ObjectRef) -> IngestOutcome:
        context_id = context_of_key(ref.key)
        outcome = IngestOutcome(ref.key)
        if context_id is None:
            reason = "the key must start with contexts/<context_id>/ (1-63 lowercase letters, digits, - or _)"
            outcome.report = IngestReport(bucket=ref.bucket, key=ref.key, status="rejected", reason=reason)
            self._write_report(ref.bucket, ref.key, outcome.report)
            return outcome
        if self._documents is not None and is_document_key(ref.key):
            outcome.document = self._documents.created(ref)
            return outcome
        if ref.version_id is None and ref.etag is None:  # a hand-written event: pin what is there now
            ref = self._objects.identify(ref)
        pinned = ref

        def write_part(index: int, data: bytes) -> None:
            self._objects.write_bytes(pinned.bucket, part_object_key(pinned, index), data)

        plan = plan_parts(
            self._objects.open(ref), self._part_lines, write_part=write_part, limits=self._limits
        )
        if plan.refused is not None:
            return self._finished(outcome, ref, context_id, "rejected", plan.refused)
        tasks = [
            PartTask(
                bucket=ref.bucket,
                key=ref.key,
                version_id=ref.version_id,
                etag=ref.etag,
                gzip=plan.gzip,
                parts=len(plan.parts),
                total_lines=plan.lines,
                part=part,
            )
            for part in plan.parts
        ]
        if not tasks:
            return self._finished(outcome, ref, context_id, "complete")
        if self._queue is not None and len(tasks) > 1:
            self._queue.send(tasks)
            outcome.queued_parts = len(tasks)
            return outcome
        for task in tasks:
            self._run(task, context_id, outcome)
        self._finish(outcome)
        return outcome

    def object_removed(self, ref: ObjectRef) -> IngestOutcome:
        """A removed document takes its chunks with it; a removed JSON Lines object changes nothing (its
        lines were loads and deletes, applied)."""
        outcome = IngestOutcome(ref.key)
        if self._documents is not None and is_document_key(ref.key):
            outcome.document = self._documents.removed(ref)
        return outcome

    def part(self, task: PartTask) -> IngestOutcome:
        context_id = context_of_key(task.key)
        outcome = IngestOutcome(task.key)
        if context_id is None:  # only a hand-made message can get here; it changes nothing
            return outcome
        self._run(task, context_id, outcome)
        self._finish(outcome)
        return outcome

    def _run(self, task: PartTask, context_id: str, outcome: IngestOutcome) -> None:
        key = part_report_key(task.ref, task.part.index)
        previous = self._objects.read_json(task.bucket, key)
        if previous is not None and PartReport.model_validate(previous).complete:
            outcome.reused_parts += 1
        else:
            lines = read_part(
                self._read(task), from_part_object=task.gzip, line_bytes=self._limits.line_bytes
            )
            load = self._loader.load_lines(lines, context_id=context_id, first_line=task.part.first_line)
            part_report = PartReport.of(task, load)
            self._objects.write_json(task.bucket, key, part_report.model_dump(mode="json"))
            outcome.loaded_parts.append(part_report)
        if task.is_last:
            parts = [
                self._objects.read_json(task.bucket, part_report_key(task.ref, i)) for i in range(task.parts)
            ]
            outcome.report = IngestReport.merge(
                task, context_id, [None if p is None else PartReport.model_validate(p) for p in parts]
            )
            self._write_report(task.bucket, task.key, outcome.report)

    def _finished(
        self,
        outcome: IngestOutcome,
        ref: ObjectRef,
        context_id: str,
        status: Literal["rejected", "complete"],
        reason: str | None = None,
    ) -> IngestOutcome:
        """``outcome`` of an object that queues no part (refused whole, or empty), its report written."""
        outcome.report = IngestReport(
            bucket=ref.bucket,
            key=ref.key,
            version_id=ref.version_id,
            context_id=context_id,
            status=status,
            reason=reason,
        )
        self._write_report(ref.bucket, ref.key, outcome.report)
        return outcome

    def _write_report(self, bucket: str, key: str, report: IngestReport) -> None:
        self._objects.write_json(bucket, report_key(key), report.model_dump(mode="json"))

    def _finish(self, outcome: IngestOutcome) -> None:
        failed = [part for part in outcome.loaded_parts if not part.complete]
        if failed:
            unwritten = sum(part.unwritten for part in failed)
            raise IngestIncompleteError(
                f"{unwritten} items of {outcome.key} were not written (parts {[p.index for p in failed]})"
            )

    def _read(self, task: PartTask) -> BinaryIO:
        """A plain object's part is a ranged read; a gzip object's part is its own plain part object."""
        if task.gzip:
            return self._objects.open(ObjectRef(task.bucket, part_object_key(task.ref, task.part.index)))
        return self._objects.open(task.ref, task.part.start, task.part.end)
