"""Ingestion jobs over a knowledge base's S3 data source (``StartIngestionJob``, ``GetIngestionJob``,
``ListIngestionJobs``, ``StopIngestionJob``): a job is the sync of the context's prefix
``contexts/<context>/`` (the custom documents' folder aside), each file applied by the ingest pipeline
as its notification would be, and each file the ledger lists that the prefix no longer holds removed.

The job's record (``ports.Records``, kind ``jobs``: keyed by the job id, which sorts by start time) says
its status (``STARTING``, ``IN_PROGRESS``, then ``COMPLETE``, ``STOPPED`` or ``FAILED``) and its
statistics, each counted from the status the pipeline recorded for the file (``COUNTED``): the same
ledger ``GetKnowledgeBaseDocuments`` and ``GET /v1/documents`` read. ``StopIngestionJob`` leaves a stop
request (kind ``jobstops``) that the run reads between files. Deployed, the run is the ingest function's
(an asynchronous invocation; one that runs short of time hands the rest to a new one); locally a thread.
One job at a time per data source: starting another while one runs is ``ConflictException``."""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..documents.formats import is_lines, is_sidecar
from ..documents.status import DocumentStatusStore
from ..errors import InvalidRequestError, RetrievalError
from ..ingest.document_files import METADATA_ONLY
from ..ingest.objects import CONTEXTS_PREFIX
from ..models.ingest import ObjectRef
from ..models.vocabulary import iso
from .catalog import CUSTOM_FOLDER, S3_DATA_SOURCE_ID, KnowledgeBaseNotFoundError, ServedKnowledgeBase
from .list_tokens import ListTokens
from .ports import DocumentObjects, Records
from .requests import ListJobsRequest, StartJobRequest

if TYPE_CHECKING:
    from ..ingest.document_files import DocumentFiles

JOBS, STOPS, TOKENS = "jobs", "jobstops", "tokens"
RUNNING = frozenset({"STARTING", "IN_PROGRESS", "STOPPING"})
STATISTICS = (
    "numberOfDocumentsScanned",
    "numberOfMetadataDocumentsScanned",
    "numberOfNewDocumentsIndexed",
    "numberOfModifiedDocumentsIndexed",
    "numberOfMetadataDocumentsModified",
    "numberOfDocumentsDeleted",
    "numberOfDocumentsFailed",
    "numberOfDocumentsSkipped",
)
COUNTED = {
    "indexed": "numberOfNewDocumentsIndexed",
    "updated": "numberOfModifiedDocumentsIndexed",
    "failed": "numberOfDocumentsFailed",
    "skipped": "numberOfDocumentsSkipped",
    "deleted": "numberOfDocumentsDeleted",
}
"""The statistic a file's recorded status after the job adds one to (``unchanged``: scanned only; an
``updated`` file whose sidecar alone changed counts as ``numberOfMetadataDocumentsModified``)."""
PROGRESS_EVERY = 20
"""Files between two writes of the record's statistics while the job runs."""
HANDOFF_SECONDS = 60.0
"""Time left at which a run hands the rest of the prefix to a new one (deployed: the function's)."""
MAX_LISTED_JOBS = 1000
NOT_S3 = (
    "ingestion jobs sync the S3 data source (S3CONTEXTS); documents of CUSTOMDOCS are indexed when "
    "IngestKnowledgeBaseDocuments writes them."
)
_ALPHABET = string.digits + string.ascii_uppercase


class IngestionJobConflictError(RetrievalError):
    """A job of this data source is still running: one at a time (``ConflictException``)."""

    code = "conflict"


def new_job_id(now: float | None = None) -> str:
    """Ten letters and digits, as Bedrock's: eight of the start time (milliseconds, base 36, so ids sort
    as jobs started), two at random."""
    millis = int((time.time() if now is None else now) * 1000)
    digits = ""
    while millis:
        millis, digit = divmod(millis, 36)
        digits = _ALPHABET[digit] + digits
    return digits.rjust(8, "0")[-8:] + "".join(secrets.choice(_ALPHABET) for _ in range(2))


class IngestionJobs:
    def __init__(
        self,
        *,
        records: Records,
        statuses: DocumentStatusStore,
        objects: DocumentObjects,
        files: Callable[[], DocumentFiles],
        launch: Callable[[dict[str, Any]], None],
        tokens: ListTokens,
        bucket: str,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._records = records
        self._statuses = statuses
        self._objects = objects
        self._files = files
        self._launch = launch
        self._tokens = tokens
        self._bucket = bucket
        self._clock = clock

    # ------------------------------------------------------------------------------------ the API

    def start(
        self, served: ServedKnowledgeBase, data_source_id: str, request: StartJobRequest
    ) -> dict[str, Any]:
        if data_source_id != S3_DATA_SOURCE_ID:
            raise InvalidRequestError(f"dataSourceId: {NOT_S3}")
        if request.clientToken is not None:
            earlier = self._records.get(TOKENS, served.context_id, f"job#{request.clientToken}")
            if earlier is not None:
                return self.get(served, data_source_id, str(earlier["job"]))
        # The latest few, not the latest one: two jobs started in one millisecond sort by chance.
        recent, _ = self._records.page(JOBS, served.context_id, limit=5, after=None, descending=True)
        running = next((job for job in recent if job["status"] in RUNNING), None)
        if running is not None:
            raise IngestionJobConflictError(
                f"Ingestion job {running['ingestionJobId']} of this data source is still running; wait "
                "for it (GetIngestionJob) or stop it (StopIngestionJob)."
            )
        now = iso(self._clock())
        job: dict[str, Any] = {
            "knowledgeBaseId": served.knowledge_base_id,
            "dataSourceId": data_source_id,
            "ingestionJobId": new_job_id(),
            "status": "STARTING",
            "statistics": dict.fromkeys(STATISTICS, 0),
            "startedAt": now,
            "updatedAt": now,
            **({"description": request.description} if request.description else {}),
        }
        while not self._records.put(JOBS, served.context_id, job["ingestionJobId"], job, new=True):
            job["ingestionJobId"] = new_job_id()  # two starts in one millisecond drew the same id
        if request.clientToken is not None:
            token = {"job": job["ingestionJobId"]}
            self._records.put(TOKENS, served.context_id, f"job#{request.clientToken}", token)
        try:
            self._launch({"context_id": served.context_id, "job_id": job["ingestionJobId"]})
        except Exception as error:  # never left STARTING (it would hold the next job off for good)
            statistics = dict.fromkeys(STATISTICS, 0)
            self._save(served.context_id, job, "FAILED", statistics, reason=type(error).__name__)
            raise
        return job

    def get(self, served: ServedKnowledgeBase, data_source_id: str, job_id: str) -> dict[str, Any]:
        job = (
            self._records.get(JOBS, served.context_id, job_id)
            if data_source_id == S3_DATA_SOURCE_ID
            else None
        )
        if job is None or job["knowledgeBaseId"] != served.knowledge_base_id:
            raise KnowledgeBaseNotFoundError("ingestion job")
        return job

    def stop(self, served: ServedKnowledgeBase, data_source_id: str, job_id: str) -> dict[str, Any]:
        job = self.get(served, data_source_id, job_id)
        if job["status"] not in RUNNING:
            raise IngestionJobConflictError(
                f"Ingestion job {job_id} is {job['status']}: it cannot be stopped."
            )
        self._records.put(STOPS, served.context_id, job_id, {"at": iso(self._clock())})
        return {**job, "status": "STOPPING"}

    def listing(
        self, served: ServedKnowledgeBase, data_source_id: str, request: ListJobsRequest
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the data source's jobs (newest first unless ``sortBy`` says otherwise)."""
        if data_source_id != S3_DATA_SOURCE_ID:
            return [], None
        records, _ = self._records.page(
            JOBS, served.context_id, limit=MAX_LISTED_JOBS, after=None, descending=True
        )
        jobs = [job for job in records if job["knowledgeBaseId"] == served.knowledge_base_id]
        if request.filters:
            wanted = set(request.filters[0].values)
            jobs = [job for job in jobs if job["status"] in wanted]
        if request.sortBy is not None:
            field = "status" if request.sortBy.attribute == "STATUS" else "ingestionJobId"
            jobs.sort(
                key=lambda job: (job[field], job["ingestionJobId"]),
                reverse=request.sortBy.order == "DESCENDING",
            )
        listing = (
            served.context_id,
            served.knowledge_base_id,
            data_source_id,
            "jobs",
            request.model_dump_json(include={"filters", "sortBy"}),
        )
        start = 0
        if request.nextToken is not None:
            after = self._tokens.open(listing, request.nextToken)
            start = next((i + 1 for i, job in enumerate(jobs) if job["ingestionJobId"] == after), len(jobs))
        size = request.maxResults or 100
        page = jobs[start : start + size]
        more = start + size < len(jobs)
        token = self._tokens.issue(listing, page[-1]["ingestionJobId"]) if more and page else None
        summaries = [{k: v for k, v in job.items() if k != "failureReasons"} for job in page]
        return summaries, token

    # ------------------------------------------------------------------------------------- the run

    def run(
        self,
        context_id: str,
        job_id: str,
        remaining: Callable[[], float] | None = None,
        after: str | None = None,
        hand_off: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Sync the prefix for the job, from key ``after`` on; ``remaining``: the seconds this run has
        left (it hands the rest on, from the last key it finished, when they run short: to ``hand_off``,
        the ingest function invoking itself deployed, else as jobs are launched)."""
        job = self._records.get(JOBS, context_id, job_id)
        if job is None or job["status"] not in RUNNING:
            return  # a replayed invocation of a job already done
        statistics: dict[str, int] = dict(job["statistics"])
        try:
            job = self._save(context_id, job, "IN_PROGRESS", statistics)
            outcome = self._sync(context_id, job_id, statistics, remaining, after)
            if outcome is not None:  # out of time: a new run goes on from there
                self._save(context_id, job, "IN_PROGRESS", statistics)
                (hand_off or self._launch)({"context_id": context_id, "job_id": job_id, "after": outcome})
                return
            self._save(
                context_id, job, "STOPPED" if self._stopping(context_id, job_id) else "COMPLETE", statistics
            )
        except Exception as error:
            self._save(
                context_id, job, "FAILED", statistics, reason=f"{type(error).__name__}: {str(error)[:300]}"
            )
            raise

    def _sync(
        self,
        context_id: str,
        job_id: str,
        statistics: dict[str, int],
        remaining: Callable[[], float] | None,
        after: str | None,
    ) -> str | None:
        """The ledger's files the prefix lost removed (by the first run), then every file of the prefix
        applied; the key to go on after when time ran short ("" for the start), else None. Stops between
        files once a stop is requested."""
        prefix = f"{CONTEXTS_PREFIX}{context_id}/"
        files = self._files()
        if after is None and not self._removed(context_id, files, statistics, job_id):
            return None
        since_saved, last_done = 0, after or ""
        for key in self._objects.keys(self._bucket, prefix, after=after or None):
            if key[len(prefix) :].startswith(CUSTOM_FOLDER) or is_lines(key):
                continue
            if is_sidecar(key):
                statistics["numberOfMetadataDocumentsScanned"] += 1
                continue
            if self._stopping(context_id, job_id):
                return None
            if remaining is not None and remaining() < HANDOFF_SECONDS:
                return last_done  # "" when none was done: the next run lists from the start
            status = files.created(ObjectRef(self._bucket, key))
            statistics["numberOfDocumentsScanned"] += 1
            if status is not None:
                counted = COUNTED.get(status.status)
                if status.status == "updated" and (status.reason or "").startswith(METADATA_ONLY):
                    counted = "numberOfMetadataDocumentsModified"
                if counted is not None:
                    statistics[counted] += 1
            since_saved, last_done = since_saved + 1, key
            if since_saved >= PROGRESS_EVERY:
                self._progress(context_id, job_id, statistics)
                since_saved = 0
        return None

    def _removed(
        self, context_id: str, files: DocumentFiles, statistics: dict[str, int], job_id: str
    ) -> bool:
        """Files the ledger holds that the prefix no longer does: removed, their chunks with them (one
        byte of each listed file read to see it is there). False when a stop came first."""
        after: str | None = None
        while True:
            page = self._statuses.page(context_id, "", limit=500, after=after)
            for status in page.documents:
                if status.status == "deleted" or status.key.startswith(CUSTOM_FOLDER):
                    continue
                ref = ObjectRef(self._bucket, f"{CONTEXTS_PREFIX}{context_id}/{status.key}")
                if self._objects.read_bytes(ref, 0) is not None:
                    continue
                if self._stopping(context_id, job_id):
                    return False
                result = files.removed(ref)
                if result is not None and result.status == "deleted":
                    statistics["numberOfDocumentsDeleted"] += 1
            if page.next_token is None:
                return True
            after = page.next_token

    def _stopping(self, context_id: str, job_id: str) -> bool:
        return self._records.get(STOPS, context_id, job_id) is not None

    def _progress(self, context_id: str, job_id: str, statistics: dict[str, int]) -> None:
        job = self._records.get(JOBS, context_id, job_id)
        if job is not None:
            self._save(context_id, job, "IN_PROGRESS", statistics)

    def _save(
        self,
        context_id: str,
        job: dict[str, Any],
        status: str,
        statistics: dict[str, int],
        reason: str | None = None,
    ) -> dict[str, Any]:
        saved = {**job, "status": status, "statistics": dict(statistics), "updatedAt": iso(self._clock())}
        if reason is not None:
            saved["failureReasons"] = [reason]
        self._records.put(JOBS, context_id, job["ingestionJobId"], saved)
        return saved
