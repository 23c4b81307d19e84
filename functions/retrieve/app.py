"""retrieve: POST /v1/retrieve, GET /v1/sessions/{session_id} and Bedrock Knowledge Bases' Retrieve
(POST /knowledgebases/{knowledgeBaseId}/retrieve), or a direct (IAM-trusted) invocation."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.metrics import MetricUnit
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.api import (
    build_resolver,
    current_caller,
    header,
    lambda_entry,
    model_response,
    serialised,
)
from retrieval_core.entrypoints.bedrock import route as knowledge_base
from retrieval_core.entrypoints.direct import DirectInvocation
from retrieval_core.entrypoints.headers import IDEMPOTENCY_HEADER, SESSION_HEADER
from retrieval_core.entrypoints.tracing import lambda_tracer
from retrieval_core.policy import SessionView
from retrieval_core.retrieval.requests import (
    RetrieveRequest,
    checked_idempotency_key,
    checked_session_id,
)
from retrieval_core.retrieval.responses import RetrieveResponse

logger = Logger()
tracer = lambda_tracer()
metrics = Metrics()
app = build_resolver(logger)


@app.post("/v1/retrieve", responses=model_response(RetrieveResponse))
def retrieve(query: RetrieveRequest) -> Response[str]:
    caller = current_caller(app)
    answer = container().retrieve.retrieve(
        caller.context,
        query,
        session_id=query.session_id or checked_session_id(header(app, SESSION_HEADER), SESSION_HEADER),
        claim_limit=caller.claim_session_limit,
        principal=caller.principal,
        idempotency_key=checked_idempotency_key(header(app, IDEMPOTENCY_HEADER), IDEMPOTENCY_HEADER),
    )
    return serialised(_counted(answer))


@app.post(knowledge_base.ROUTE, responses=knowledge_base.RESPONSES)
def knowledge_base_retrieve(knowledgeBaseId: str) -> Response[str]:
    settings = container().settings
    base = knowledge_base.KnowledgeBase(
        retrieve=lambda *args, **kwargs: _counted(container().retrieve.retrieve(*args, **kwargs)),
        context_claim=settings.context_claim,
        default_mode=settings.knowledge_base_search_type,
        rerank_model=settings.rerank_model,
    )
    return knowledge_base.answer_retrieve(app.current_event.raw_event, knowledgeBaseId, base, logger)


@app.get("/v1/sessions/<session_id>")
def session(
    # Checked below, once decoded: API Gateway hands the path over percent-encoded (a ':' may come as
    # %3A). The OpenAPI document states the pattern (``retrieval openapi``).
    session_id: Annotated[str, Path(description="A session id.")],
) -> SessionView:
    caller = current_caller(app)
    # The route's regex captures "s" of "s\n" (its "$" matches before a final newline): check the raw value.
    raw = unquote((app.current_event.path_parameters or {}).get("session_id", session_id))
    view = container().policy.describe(
        context_id=caller.context.context_id,
        session_id=checked_session_id(raw, "session_id"),
        claim_limit=caller.claim_session_limit,
        principal=caller.principal,
    )
    metrics.add_metric(name="SessionsDescribed", unit=MetricUnit.Count, value=1)
    return view


def _direct(context: CallerContext, invocation: DirectInvocation) -> RetrieveResponse:
    request = RetrieveRequest.model_validate(invocation.request)
    answer = container().retrieve.retrieve(
        context,
        request,
        session_id=invocation.session_id,
        idempotency_key=checked_idempotency_key(invocation.idempotency_key, "idempotency_key"),
    )
    return _counted(answer)


def _counted(response: RetrieveResponse) -> RetrieveResponse:
    metrics.add_metric(name=f"Retrieve_{response.mode}", unit=MetricUnit.Count, value=1)
    return response


lambda_handler = lambda_entry(app, _direct, logger=logger, tracer=tracer, metrics=metrics)
