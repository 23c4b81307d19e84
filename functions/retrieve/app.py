"""retrieve: POST /v1/retrieve and GET /v1/sessions/{session_id}, or a direct (IAM-trusted) invocation."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.api import build_resolver, current_caller, header, lambda_entry
from retrieval_core.entrypoints.direct import DirectInvocation
from retrieval_core.entrypoints.tracing import lambda_tracer
from retrieval_core.policy import SessionView
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.responses import RetrieveResponse

SESSION_HEADER = "X-Retrieval-Session"

logger = Logger()
tracer = lambda_tracer()
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
        principal=caller.principal,
    )
    metrics.add_metric(name=f"Retrieve_{response.mode}", unit=MetricUnit.Count, value=1)
    return response


@app.get("/v1/sessions/<session_id>")
def session(session_id: str) -> SessionView:
    caller = current_caller(app)
    return container().policy.describe(
        context_id=caller.context.context_id,
        session_id=session_id,
        claim_limit=caller.claim_session_limit,
        principal=caller.principal,
    )


def _direct(context: CallerContext, invocation: DirectInvocation) -> RetrieveResponse:
    request = RetrieveRequest.model_validate(invocation.request)
    return container().retrieve.retrieve(context, request, session_id=invocation.session_id)


lambda_handler = lambda_entry(app, _direct, logger=logger, tracer=tracer, metrics=metrics)
