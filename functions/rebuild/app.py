"""rebuild: rebuild indices from inside the VPC (a deployed domain has no laptop next to it), as
``retrieval rebuild`` does locally: the same use case, ``lifecycle.rebuild.RebuildService``.

Invoked directly (``aws lambda invoke``) with ``{"context_id": "acme"}`` or ``{"all": true}``, plus
``"reembed": true`` or ``"rollback": true``. Progress goes to the log; the answer lists every alias moved.
A failure raises, so the invocation counts as an error (and alarms); the alias still names its old index.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from pydantic import ValidationError
from retrieval_core.bootstrap import container
from retrieval_core.entrypoints.error_counts import count_errors
from retrieval_core.entrypoints.status import status_of
from retrieval_core.entrypoints.tracing import lambda_tracer
from retrieval_core.errors import InvalidRequestError
from retrieval_core.lifecycle.requests import RebuildRequest

logger = Logger()
tracer = lambda_tracer()
metrics = Metrics()


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    metrics.add_metric(name="RebuildInvocations", unit=MetricUnit.Count, value=1)
    try:
        request = RebuildRequest.model_validate(event)
    except ValidationError as error:
        refused = InvalidRequestError(error.errors(include_url=False, include_input=False)[0]["msg"])
        logger.warning("not a rebuild request", extra={"reason": refused.message})
        status = status_of(refused)
        count_errors(metrics, status)
        return {"statusCode": status, "body": refused.to_body()}
    service = container().rebuilder(logger.info)
    if request.rollback:
        switches = service.rollback(request.context_id)
    else:
        switches = service.rebuild(request.context_id, reembed=request.reembed)
    metrics.add_metric(name="IndicesSwitched", unit=MetricUnit.Count, value=len(switches))
    return {"statusCode": 200, "body": {"switches": [asdict(switch) for switch in switches]}}
