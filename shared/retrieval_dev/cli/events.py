"""API Gateway REST proxy events as the deployed API would send them after the authorizer allowed a
caller: used by the demo, ``retrieval serve``, the eval and the bench, so all exercise the real path."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote


def api_event(
    method: str,
    path: str,
    context_id: str,
    *,
    body: Any = None,
    query: dict[str, str] | None = None,
    path_parameters: dict[str, str] | None = None,
    resource: str | None = None,
) -> dict[str, Any]:
    """A REST proxy event as API Gateway sends it after a Lambda authorizer allowed ``context_id``."""
    return {
        "resource": resource or path,
        "path": path,
        "httpMethod": method,
        "headers": {"Content-Type": "application/json"},
        "queryStringParameters": query,
        "pathParameters": path_parameters,
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "resourcePath": resource or path,
            "httpMethod": method,
            "stage": "local",
            "authorizer": {"principalId": "local", "context_id": context_id},
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def session_event(context_id: str, session_id: str) -> dict[str, Any]:
    """``GET /v1/sessions/{session_id}`` as API Gateway routes it."""
    return api_event(
        "GET",
        f"/v1/sessions/{session_id}",
        context_id,
        path_parameters={"session_id": session_id},
        resource="/v1/sessions/{session_id}",
    )


def why_event(context_id: str, item_id: str, depth: int | None = None) -> dict[str, Any]:
    """``GET /v1/why/{item_id}[?depth=N]`` as API Gateway routes it: the id percent-encoded as a
    client sends it (a chunk's '#' as %23), in the path and in the path parameters alike."""
    encoded = quote(item_id, safe=":")
    return api_event(
        "GET",
        f"/v1/why/{encoded}",
        context_id,
        path_parameters={"item_id": encoded},
        query=None if depth is None else {"depth": str(depth)},
        resource="/v1/why/{item_id}",
    )
