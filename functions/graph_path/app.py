"""graph_path: GET /v1/graph/path?from=&to=&max_depth=&max_paths=&statuses=, or a direct invocation."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query
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
from retrieval_core.graph.models import GraphPathRequest, GraphPathResponse

tools, app = api_function()


@app.get("/v1/graph/path", responses=model_response(GraphPathResponse))
def path(
    from_id: Annotated[str, Query(alias="from", min_length=1, description="Start entity id.")],
    to_id: Annotated[str, Query(alias="to", min_length=1, description="End entity id.")],
    max_depth: Annotated[int, Query(description="Clamped to 1..5.")] = 3,
    max_paths: Annotated[int, Query(description="Clamped to 1..5.")] = 1,
    statuses: Annotated[
        str | None,
        Query(description="Comma-separated edge statuses (ACTIVE, SUPERSEDED, CONTRADICTED, STALE)."),
    ] = None,
) -> Response[str]:
    fields: dict[str, Any] = {"from": from_id, "to": to_id, "max_depth": max_depth, "max_paths": max_paths}
    if statuses is not None:  # given but empty is no status at all: a 422, as the spec's minItems says
        fields["statuses"] = [s.strip() for s in statuses.split(",") if s.strip()]
    return serialised(_find(current_caller(app).context, door_validated(GraphPathRequest, fields)))


def _find(context: CallerContext, request: GraphPathRequest) -> GraphPathResponse:
    response = container().graph_path.find(context, request)
    tools.count("GraphPathsFound", len(response.paths))
    tools.count("GraphNodesVisited", response.explored.nodes_visited)
    return response


def _direct(context: CallerContext, invocation: DirectInvocation) -> GraphPathResponse:
    return _find(context, door_validated(GraphPathRequest, invocation.request))


lambda_handler = lambda_entry(app, _direct, tools)
