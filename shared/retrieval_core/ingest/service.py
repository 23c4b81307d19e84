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
from typing import TYPE_CHECKING, BinaryIO, Literal, cast

from ..models.ingest import ObjectRef, PartTask
from ..models.limits import LIMITS, StorageLimits
from .document_files import is_document_key
from .errors import IngestIncompleteError
from .lines_ledger import DigestingReader
from .objects import context_of_key, part_object_key, part_report_key, report_key
from .ports import LineLoader, ObjectStore, PartQueue
from .reading import plan_parts, read_part
from .report import IngestReport, PartReport

if TYPE_CHECKING:
    from ..documents.status import DocumentStatus
    from .document_files import DocumentFiles
    from .lines_ledger import LinesLedger


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """What one invocation did: the parts it loaded (for metrics), queued or reused, and the final report
    if this invocation wrote it. A value: each part run returns its own, and they are ``combined``."""

    key: str
    loaded_parts: list[PartReport] = field(default_factory=list)
    reused_parts: int = 0
    queued_parts: int = 0
    report: IngestReport | None = None
    document: DocumentStatus | None = None
    """A document's (or its sidecar's) event: the file's status after it."""
    lines_record: DocumentStatus | None = None
    """A JSON Lines object's record (``lines_ledger``) once its report is written, or once removed."""

    @classmethod
    def combined(cls, key: str, runs: list[IngestOutcome]) -> IngestOutcome:
        """The outcomes of one object's parts run in order as one (the last part's report is the final)."""
        return cls(
            key,
            loaded_parts=[part for run in runs for part in run.loaded_parts],
            reused_parts=sum(run.reused_parts for run in runs),
            report=next((run.report for run in reversed(runs) if run.report is not None), None),
            lines_record=next((r.lines_record for r in reversed(runs) if r.lines_record is not None), None),
        )


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
        ledger: LinesLedger | None = None,
    ) -> None:
        self._loader = loader
        self._objects = objects
        self._queue = queue
        self._part_lines = part_lines
        self._limits = limits
        self._documents = documents
        self._ledger = ledger
        """Where a JSON Lines object's record goes (``pending``, then its fate); None: nowhere."""

    def object_created(self, ref: ObjectRef) -> IngestOutcome:
        context_id = context_of_key(ref.key)
        if context_id is None:
            reason = "the key must start with contexts/<context_id>/ (1-63 lowercase letters, digits, - or _)"
            report = IngestReport(bucket=ref.bucket, key=ref.key, status="rejected", reason=reason)
            self._write_report(ref.bucket, ref.key, report)
            return IngestOutcome(ref.key, report=report)
        if self._documents is not None and is_document_key(ref.key):
            return IngestOutcome(ref.key, document=self._documents.created(ref))
        if ref.version_id is None and ref.etag is None:  # a hand-written event: pin what is there now
            ref = self._objects.identify(ref)
        pinned = ref

        def write_part(index: int, data: bytes) -> None:
            self._objects.write_bytes(pinned.bucket, part_object_key(pinned, index), data)

        stored = DigestingReader(self._objects.open(ref))
        plan = plan_parts(
            cast(BinaryIO, stored), self._part_lines, write_part=write_part, limits=self._limits
        )
        digest = stored.digest(self._limits.object_bytes)
        if plan.refused is not None:
            return self._finished(ref, context_id, "rejected", plan.refused, digest)
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
            return self._finished(ref, context_id, "complete", digest=digest)
        if self._ledger is not None:
            self._ledger.begun(ref, context_id, digest)
        if self._queue is not None and len(tasks) > 1:
            self._queue.send(tasks)
            return IngestOutcome(ref.key, queued_parts=len(tasks))
        runs = [self._run(task, context_id, digest) for task in tasks]
        return self._finish(IngestOutcome.combined(ref.key, runs))

    def object_removed(self, ref: ObjectRef) -> IngestOutcome:
        """A removed document takes its chunks with it; a removed JSON Lines object changes nothing (its
        lines were loads and deletes, applied)."""
        if self._documents is not None and is_document_key(ref.key):
            return IngestOutcome(ref.key, document=self._documents.removed(ref))
        context_id = context_of_key(ref.key)
        if self._ledger is None or context_id is None:
            return IngestOutcome(ref.key)
        return IngestOutcome(ref.key, lines_record=self._ledger.removed(ref, context_id))

    def part(self, task: PartTask) -> IngestOutcome:
        context_id = context_of_key(task.key)
        if context_id is None:  # only a hand-made message can get here; it changes nothing
            return IngestOutcome(task.key)
        return self._finish(self._run(task, context_id))

    def _run(self, task: PartTask, context_id: str, digest: str | None = None) -> IngestOutcome:
        """One part loaded (or its complete report reused); the last part also merges the object's report."""
        key = part_report_key(task.ref, task.part.index)
        previous = self._objects.read_json(task.bucket, key)
        reused = previous is not None and PartReport.model_validate(previous).complete
        loaded = [] if reused else [self._load_part(task, context_id, key)]
        report = self._merged(task, context_id) if task.is_last else None
        record = None
        if report is not None and self._ledger is not None:  # queued parts: the digest is in the record
            record = (
                self._ledger.finished(task.ref, context_id, report, digest)
                if digest is not None
                else self._ledger.parts_finished(task.ref, context_id, report)
            )
        return IngestOutcome(
            task.key, loaded_parts=loaded, reused_parts=int(reused), report=report, lines_record=record
        )

    def _load_part(self, task: PartTask, context_id: str, key: str) -> PartReport:
        lines = read_part(self._read(task), from_part_object=task.gzip, line_bytes=self._limits.line_bytes)
        load = self._loader.load_lines(lines, context_id=context_id, first_line=task.part.first_line)
        part_report = PartReport.of(task, load)
        self._objects.write_json(task.bucket, key, part_report.model_dump(mode="json"))
        return part_report

    def _merged(self, task: PartTask, context_id: str) -> IngestReport:
        """The object's report from every part's (a part that never ran is named missing), written."""
        keys = [part_report_key(task.ref, index) for index in range(task.parts)]
        stored = [self._objects.read_json(task.bucket, key) for key in keys]
        parts = [None if p is None else PartReport.model_validate(p) for p in stored]
        report = IngestReport.merge(task, context_id, parts)
        self._write_report(task.bucket, task.key, report)
        return report

    def _finished(
        self,
        ref: ObjectRef,
        context_id: str,
        status: Literal["rejected", "complete"],
        reason: str | None = None,
        digest: str | None = None,
    ) -> IngestOutcome:
        """The outcome of an object that queues no part (refused whole, or empty), its report written."""
        report = IngestReport(
            bucket=ref.bucket,
            key=ref.key,
            version_id=ref.version_id,
            context_id=context_id,
            status=status,
            reason=reason,
        )
        self._write_report(ref.bucket, ref.key, report)
        record = None if self._ledger is None else self._ledger.finished(ref, context_id, report, digest)
        return IngestOutcome(ref.key, report=report, lines_record=record)

    def _write_report(self, bucket: str, key: str, report: IngestReport) -> None:
        self._objects.write_json(bucket, report_key(key), report.model_dump(mode="json"))

    def _finish(self, outcome: IngestOutcome) -> IngestOutcome:
        """``outcome``, unless a part it loaded left items unwritten: then the invocation fails (retried)."""
        failed = [part for part in outcome.loaded_parts if not part.complete]
        if failed:
            unwritten = sum(part.unwritten for part in failed)
            raise IngestIncompleteError(
                f"{unwritten} items of {outcome.key} were not written (parts {[p.index for p in failed]})"
            )
        return outcome

    def _read(self, task: PartTask) -> BinaryIO:
        """A plain object's part is a ranged read; a gzip object's part is its own plain part object."""
        if task.gzip:
            return self._objects.open(ObjectRef(task.bucket, part_object_key(task.ref, task.part.index)))
        return self._objects.open(task.ref, task.part.start, task.part.end)
