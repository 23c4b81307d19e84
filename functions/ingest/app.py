"""ingest: S3 ObjectCreated and ObjectRemoved notifications under contexts/<context_id>/ (JSON Lines and
documents: docs/INGEST.md, docs/DOCUMENTS.md) and queued parts of large objects.

Returns a summary per object; fails the invocation (so Lambda or SQS retries it, then parks it in the
dead-letter queue) when items could not be written. Metrics count what this invocation applied.
"""

from __future__ import annotations

from typing import Any

from retrieval_core.bootstrap import container
from retrieval_core.entrypoints.instruments import Instruments
from retrieval_core.ingest.errors import IngestEventError
from retrieval_core.ingest.events import ObjectRemoved, work_of
from retrieval_core.ingest.service import IngestOutcome
from retrieval_core.models.ingest import ObjectRef

tools = Instruments.create()

METRICS = {
    "ItemsLoaded": "loaded",
    "ItemsUpdated": "updated",
    "ItemsDeleted": "deleted",
    "LinesRejected": "rejected",
    "ItemsUnwritten": "unwritten",
}


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    tools.count("IngestInvocations")
    if "ingestion_job" in event:  # bedrock-agent's StartIngestionJob, handed over by retrieve
        return _ingestion_job(event["ingestion_job"], context)
    try:
        work = work_of(event)
    except IngestEventError as error:
        return tools.refused(error, "an ingest event")
    service = container().ingest
    summaries = []
    for unit in work:
        tools.logger.append_keys(object_key=unit.key)
        try:
            if isinstance(unit, ObjectRef):
                outcome = service.object_created(unit)
            elif isinstance(unit, ObjectRemoved):
                outcome = service.object_removed(unit.ref)
            else:
                outcome = service.part(unit)
        finally:
            tools.logger.remove_keys(["object_key"])
        _count(outcome)
        summaries.append(_summary(outcome))
    return {"statusCode": 200, "body": {"objects": summaries}}


def _ingestion_job(job: dict[str, Any], context: Any) -> dict[str, Any]:
    """Sync a context's prefix for an ingestion job (``knowledge_bases.jobs``); a run short of time
    hands the rest to a new invocation."""
    tools.logger.append_keys(ingestion_job=job.get("job_id"))
    container().ingestion_jobs.run(
        str(job["context_id"]),
        str(job["job_id"]),
        remaining=lambda: context.get_remaining_time_in_millis() / 1000,
        after=job.get("after"),
        hand_off=container().job_hand_off(context.invoked_function_arn),
    )
    tools.count("IngestionJobRuns")
    return {"statusCode": 200, "body": {"ingestion_job": job.get("job_id")}}


def _count(outcome: IngestOutcome) -> None:
    for metric, field in METRICS.items():
        value = sum(getattr(part, field) for part in outcome.loaded_parts)
        tools.count(metric, value)
    tools.count("PartsQueued", outcome.queued_parts)
    if outcome.document is not None:
        tools.count("DocumentsFailed" if outcome.document.status == "failed" else "DocumentsApplied")


def _summary(outcome: IngestOutcome) -> dict[str, Any]:
    return {
        "key": outcome.key,
        "parts_loaded": [part.index for part in outcome.loaded_parts],
        "parts_reused": outcome.reused_parts,
        "parts_queued": outcome.queued_parts,
        "report": outcome.report.model_dump(mode="json") if outcome.report else None,
        "document": outcome.document.public() if outcome.document else None,
        "lines_record": outcome.lines_record.public() if outcome.lines_record else None,
    }


lambda_handler = tools.wrap(handle)
