"""ingest: S3 ObjectCreated notifications under contexts/<context_id>/ and queued parts of large objects.

Returns a summary per object; fails the invocation (so Lambda or SQS retries it, then parks it in the
dead-letter queue) when items could not be written. Metrics count what this invocation applied.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from retrieval_core.bootstrap import container
from retrieval_core.entrypoints.error_counts import count_errors
from retrieval_core.entrypoints.status import status_of
from retrieval_core.entrypoints.tracing import lambda_tracer
from retrieval_core.ingest.errors import IngestEventError
from retrieval_core.ingest.events import work_of
from retrieval_core.ingest.service import IngestOutcome
from retrieval_core.models.ingest import ObjectRef

logger = Logger()
tracer = lambda_tracer()
metrics = Metrics()

METRICS = {
    "ItemsLoaded": "loaded",
    "ItemsUpdated": "updated",
    "ItemsDeleted": "deleted",
    "LinesRejected": "rejected",
    "ItemsUnwritten": "unwritten",
}


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    metrics.add_metric(name="IngestInvocations", unit=MetricUnit.Count, value=1)
    try:
        work = work_of(event)
    except IngestEventError as error:
        logger.warning("not an ingest event", extra={"reason": error.message})
        status = status_of(error)
        count_errors(metrics, status)
        return {"statusCode": status, "body": error.to_body()}
    service = container().ingest
    summaries = []
    for unit in work:
        logger.append_keys(object_key=unit.key)
        try:
            outcome = service.object_created(unit) if isinstance(unit, ObjectRef) else service.part(unit)
        finally:
            logger.remove_keys(["object_key"])
        _count(outcome)
        summaries.append(_summary(outcome))
    return {"statusCode": 200, "body": {"objects": summaries}}


def _count(outcome: IngestOutcome) -> None:
    for metric, field in METRICS.items():
        value = sum(getattr(part, field) for part in outcome.loaded_parts)
        metrics.add_metric(name=metric, unit=MetricUnit.Count, value=value)
    metrics.add_metric(name="PartsQueued", unit=MetricUnit.Count, value=outcome.queued_parts)


def _summary(outcome: IngestOutcome) -> dict[str, Any]:
    return {
        "key": outcome.key,
        "parts_loaded": [part.index for part in outcome.loaded_parts],
        "parts_reused": outcome.reused_parts,
        "parts_queued": outcome.queued_parts,
        "report": outcome.report.model_dump(mode="json") if outcome.report else None,
    }
