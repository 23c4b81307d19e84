"""What loading an object did: one report per part, merged into the object's report.

Counts are exact; the lists name at most ``LISTED`` rejected lines and unwritten ids (a million bad
lines would not fit a readable report), in line order.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..loading.loader import LISTED_ERRORS, LoadReport
from ..models.ingest import PartTask

LISTED = LISTED_ERRORS
"""The loader's own cap: a part lists the rejected lines its load kept, and as many unwritten ids."""


class RejectedLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int
    field: str
    reason: str


class Counts(BaseModel):
    """``loaded``: items written (``updated`` of them replaced an item already there); ``deleted``:
    items removed (``absent``: deletes of ids that were not there); ``rejected``: bad lines;
    ``unwritten``: items or deletes that failed to apply (the invocation fails and is retried)."""

    loaded: int = 0
    updated: int = 0
    deleted: int = 0
    absent: int = 0
    rejected: int = 0
    unwritten: int = 0


class PartReport(Counts):
    index: int
    first_line: int
    lines: int
    rejected_lines: list[RejectedLine] = []
    unwritten_ids: list[str] = []

    @property
    def complete(self) -> bool:
        return self.unwritten == 0

    @classmethod
    def of(cls, task: PartTask, load: LoadReport) -> PartReport:
        errors = sorted(load.errors, key=lambda e: e.line)
        return cls(
            index=task.part.index,
            first_line=task.part.first_line,
            lines=task.part.lines,
            loaded=load.loaded,
            updated=load.updated,
            deleted=load.deleted,
            absent=load.absent,
            rejected=load.rejected,
            unwritten=len(load.unwritten),
            rejected_lines=[RejectedLine(line=e.line, field=e.field, reason=e.message) for e in errors][
                :LISTED
            ],
            unwritten_ids=load.unwritten[:LISTED],
        )


class IngestReport(Counts):
    """``reports/<key>.json``. ``status``: ``complete`` (every line applied or rejected), ``incomplete``
    (some items unwritten, or a part never ran: ``missing_parts``), ``rejected`` (the key names no
    context, or the object passes an object limit: nothing was loaded, ``reason`` says why)."""

    bucket: str
    key: str
    version_id: str | None = None
    context_id: str | None = None
    status: Literal["complete", "incomplete", "rejected"]
    reason: str | None = None
    lines: int = 0
    parts: int = 0
    missing_parts: list[int] = []
    rejected_lines: list[RejectedLine] = []
    unwritten_ids: list[str] = []

    @classmethod
    def merge(cls, task: PartTask, context_id: str, parts: list[PartReport | None]) -> IngestReport:
        done = [part for part in parts if part is not None]
        missing = [index for index, part in enumerate(parts) if part is None]
        totals = {name: sum(getattr(part, name) for part in done) for name in Counts.model_fields}
        complete = not missing and all(part.complete for part in done)
        return cls(
            bucket=task.bucket,
            key=task.key,
            version_id=task.version_id,
            context_id=context_id,
            status="complete" if complete else "incomplete",
            lines=task.total_lines,
            parts=task.parts,
            missing_parts=missing,
            rejected_lines=[line for part in done for line in part.rejected_lines][:LISTED],
            unwritten_ids=[item for part in done for item in part.unwritten_ids][:LISTED],
            **totals,
        )
