"""retrieve: POST /v1/retrieve and GET /v1/sessions/{session_id}, or a direct (IAM-trusted) invocation."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.api import build_resolver, current_caller, header, resolve
from retrieval_core.entrypoints.direct import DirectInvocation, handle_direct, is_direct
from retrieval_core.models.requests import RetrieveRequest
from retrieval_core.models.responses import RetrieveResponse
from retrieval_core.policy import SessionView

SESSION_HEADER = "X-Retrieval-Session"

logger = Logger()
tracer = Tracer()
metrics = Metrics()
app = build_resolver(logger)


@app.post("/v1/retrieve")
def retrieve(query: RetrieveRequest) -> RetrieveResponse:
    caller = current_caller(app)
    response = container().retrieve.retrieve(
        caller.context,
        query,
        session_id=query.session_id or header(app, SESSION_HEADER),
        claim_limit=caller.claim_session_limit,
    )
    metrics.add_metric(name=f"Retrieve_{response.mode}", unit=MetricUnit.Count, value=1)
    return response


@app.get("/v1/sessions/<session_id>")
def session(session_id: str) -> SessionView:
    caller = current_caller(app)
    return container().policy.describe(
        context_id=caller.context.context_id, session_id=session_id, claim_limit=caller.claim_session_limit
    )


def _direct(context: CallerContext, invocation: DirectInvocation) -> RetrieveResponse:
    request = RetrieveRequest.model_validate(invocation.request)
    return container().retrieve.retrieve(context, request, session_id=invocation.session_id)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_direct(event):
        return handle_direct(event, _direct, logger)
    return resolve(app, event, context, logger)
