"""API Gateway's side of a request, as data: the routes, the development authorizer's claims, the REST
proxy event a function receives, and the gateway responses the template declares."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from retrieval_core.entrypoints.bedrock import AGENT_OPERATIONS, GENERATE_ROUTES
from retrieval_core.entrypoints.bedrock import RESOURCE as KB_RESOURCE

ROUTES: list[tuple[str, re.Pattern[str], str, str]] = [
    ("POST", re.compile(r"^/v1/retrieve$"), "retrieve", "/v1/retrieve"),
    ("GET", re.compile(r"^/v1/sessions/(?P<session_id>[^/]+)$"), "retrieve", "/v1/sessions/{session_id}"),
    ("GET", re.compile(r"^/v1/documents$"), "retrieve", "/v1/documents"),
    ("GET", re.compile(r"^/v1/documents/(?P<key>[^/]+)$"), "retrieve", "/v1/documents/{key}"),
    ("GET", re.compile(r"^/v1/graph/path$"), "graph_path", "/v1/graph/path"),
    ("GET", re.compile(r"^/v1/why/(?P<item_id>[^/]+)$"), "why_explain", "/v1/why/{item_id}"),
    ("POST", re.compile(r"^/knowledgebases/(?P<knowledgeBaseId>[^/]+)/retrieve$"), "retrieve", KB_RESOURCE),
    *(("POST", re.compile(f"^{route}$"), "retrieve", route) for route in GENERATE_ROUTES),
]


def _resource_pattern(resource: str) -> re.Pattern[str]:
    """A resource's path pattern: each ``{name}`` one segment; a trailing '/' is the same resource
    (botocore sends ``/knowledgebases/``; API Gateway routes it to ``/knowledgebases``)."""
    return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", resource) + "/?$")


ROUTES += [
    (method, _resource_pattern(resource), "retrieve", resource) for method, resource in AGENT_OPERATIONS
]
SIGV4_RESOURCES = frozenset({KB_RESOURCE, *GENERATE_ROUTES, *(r for _, r in AGENT_OPERATIONS)})
"""The routes the template authorizes with AWS_IAM instead of the authorizer."""
DEV_TOKEN = re.compile(r"^Bearer dev:(?P<contexts>[a-z0-9_,-]+)(?::(?P<limit>\d+))?$")
MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit
# The template's gateway responses (template.yaml, GatewayResponses).
UNAUTHORIZED_BODY = {
    "error": "unauthenticated",
    "message": "Missing or invalid credentials: send a valid token in the Authorization header.",
}
ACCESS_DENIED_BODY = {
    "error": "forbidden",
    "message": "These credentials may not call this API, or not in the context X-Context-Id names.",
}
"""ACCESS_DENIED: the authorizer's Deny, as for an X-Context-Id outside the token's contexts."""
MISSING_ROUTE_BODY = {"error": "gateway_error", "message": "Missing Authentication Token"}
CRASHED_FUNCTION_BODY = {"error": "gateway_error", "message": "Internal server error"}
"""DEFAULT_5XX, as API Gateway answers when the function's container died before it answered."""


def dev_claims(authorization: str | None) -> dict[str, str] | None:
    """The claims of a dev token, or None (a 401) unless every context it names is a valid context id:
    ``dev:,initech`` or ``dev:acme,,x`` is no token, by the check the deployed authorizer makes
    (``token_contexts``)."""
    from retrieval_core.entrypoints.token_contexts import ContextListError, token_contexts

    match = DEV_TOKEN.fullmatch(authorization or "")
    if match is None:
        return None
    try:
        contexts = token_contexts(match["contexts"].split(","))
    except ContextListError:
        return None
    claims = {"principalId": "dev", "context_id": ",".join(contexts)}
    if match["limit"]:
        claims["session_limit"] = match["limit"]
    return claims


def is_routed_path(raw_path: str) -> bool:
    """True when some route (of any method) owns the path: the paths a CORS preflight is answered for."""
    path = urlsplit(raw_path).path
    return any(pattern.fullmatch(path) for _, pattern, _, _ in ROUTES)


def proxy_event(
    method: str, raw_path: str, headers: dict[str, str], body: str | None
) -> tuple[str, dict[str, Any]] | None:
    """The function name and REST proxy event for a request, or None when no route matches."""
    url = urlsplit(raw_path)
    for route_method, pattern, function, resource in ROUTES:
        match = pattern.fullmatch(url.path)
        if match and route_method == method:
            query = parse_qs(url.query, keep_blank_values=True)
            event = {
                "resource": resource,
                "path": url.path,
                "httpMethod": method,
                "headers": headers,
                "multiValueHeaders": {k: [v] for k, v in headers.items()},
                "queryStringParameters": {k: v[-1] for k, v in query.items()} or None,
                "multiValueQueryStringParameters": query or None,
                "pathParameters": match.groupdict() or None,
                "requestContext": {
                    "resourcePath": resource,
                    "httpMethod": method,
                    "path": url.path,
                    "stage": "local",
                    "requestId": str(uuid.uuid4()),
                    "authorizer": dev_claims(headers.get("Authorization")),
                },
                "body": body,
                "isBase64Encoded": False,
            }
            return function, event
    return None


def response_headers(response: dict[str, Any]) -> list[tuple[str, str]]:
    """A proxy response's ``headers`` and ``multiValueHeaders`` (where Powertools puts ``Retry-After``),
    merged as API Gateway merges them: a name in both keeps the multi-value list, one line per value."""
    multi = {
        str(k): [str(v) for v in values] for k, values in (response.get("multiValueHeaders") or {}).items()
    }
    single = [(str(k), str(v)) for k, v in (response.get("headers") or {}).items() if str(k) not in multi]
    return single + [(name, value) for name, values in multi.items() for value in values]
