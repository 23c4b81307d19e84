"""why_explain: GET /v1/why/{item_id}?depth=N, or a direct invocation."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.api import (
    api_function,
    current_caller,
    door_validated,
    lambda_entry,
    model_response,
    serialised,
)
from retrieval_core.entrypoints.direct import DirectInvocation
from retrieval_core.lineage import WhyExplainRequest, WhyExplainResponse
from retrieval_core.models.limits import MAX_ITEM_ID_CHARS

tools, app = api_function()


@app.get("/v1/why/<item_id>", responses=model_response(WhyExplainResponse))
def why(
    item_id: Annotated[
        str, Path(min_length=1, max_length=MAX_ITEM_ID_CHARS, description="An item id (`acme:p-0042`).")
    ],
    depth: Annotated[int, Query(description="Clamped to 1..5.")] = 3,
) -> Response[str]:
    # API Gateway (REST) hands the path over as the client encoded it, and the resolver matches on that
    # path: decoded once here, '%23' is the '#' of a document chunk's id (acme:doc-04#c1).
    request = door_validated(WhyExplainRequest, {"item_id": unquote(item_id), "depth": depth})
    return serialised(_explain(current_caller(app).context, request))


def _explain(context: CallerContext, request: WhyExplainRequest) -> WhyExplainResponse:
    response = container().why_explain.explain(context, request)
    tools.count("LineageLevels", response.explored.levels)
    tools.count("LineageAncestors", len(response.derived_from.nodes))
    return response


def _direct(context: CallerContext, invocation: DirectInvocation) -> WhyExplainResponse:
    return _explain(context, door_validated(WhyExplainRequest, invocation.request))


lambda_handler = lambda_entry(app, _direct, tools)
