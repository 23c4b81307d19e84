"""why_explain: GET /v1/why/{proposition_id}?depth=N, or a direct invocation."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.api import build_resolver, current_caller, resolve
from retrieval_core.entrypoints.direct import DirectInvocation, handle_direct, is_direct
from retrieval_core.lineage import WhyExplainRequest, WhyExplainResponse, why_explain

logger = Logger()
tracer = Tracer()
metrics = Metrics()
app = build_resolver(logger)


@app.get("/v1/why/<proposition_id>")
def why(
    proposition_id: str, depth: Annotated[int, Query(description="Clamped to 1..5.")] = 3
) -> WhyExplainResponse:
    request = WhyExplainRequest(item_id=proposition_id, depth=depth)
    return _explain(current_caller(app).context, request)


def _explain(context: CallerContext, request: WhyExplainRequest) -> WhyExplainResponse:
    components = container()
    return why_explain(components.lineage, components.store, context, request)


def _direct(context: CallerContext, invocation: DirectInvocation) -> WhyExplainResponse:
    return _explain(context, WhyExplainRequest.model_validate(invocation.request))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_direct(event):
        return handle_direct(event, _direct, logger)
    return resolve(app, event, context, logger)
