"""``retrieval openapi [--output docs/openapi.json]``: one OpenAPI document for the whole API.

Each function's Powertools resolver describes its own routes and models; this merges them into one
document and adds what no single resolver knows: the servers, the authorizer's security scheme, the
headers every route reads, and the error responses the shared entry point produces (``entrypoints/api.py``
replaces Powertools' validation error body with the project's own, so the generated 422 is rewritten).
``tests/unit/test_openapi.py`` fails when the committed ``docs/openapi.json`` differs from this output.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from retrieval_core.context import CONTEXT_ID_PATTERN
from retrieval_core.entrypoints import wire
from retrieval_core.entrypoints.bedrock import GENERATE_ROUTES
from retrieval_core.entrypoints.bedrock import RESOURCE as KNOWLEDGE_BASE_RESOURCE
from retrieval_core.entrypoints.bedrock.errors import ERROR_CODES, ERROR_TYPE_HEADER, INTERNAL
from retrieval_core.entrypoints.bedrock.request import KnowledgeBaseRetrieveRequest
from retrieval_core.models.knowledge_bases import KNOWLEDGE_BASE_ARN_PATTERN, KNOWLEDGE_BASE_ID_PATTERN
from retrieval_core.models.vocabulary import Status
from retrieval_core.policy.state import IDEMPOTENCY_KEY_PATTERN
from retrieval_core.retrieval.requests import SESSION_ID_JSON_PATTERN

from .lambda_runtime import API_FUNCTIONS, FUNCTIONS_DIR, UnknownFunctionError, handler_module

TITLE = "Retrieval functions API"
DESCRIPTION = (
    "Lexical, vector, hybrid, entity, graph and temporal retrieval with citations, shortest paths between "
    "entities, and lineage explanations. Every request acts in exactly one context, taken from the "
    "authorizer's claims (never from the body or the query string); a foreign id is answered exactly "
    "like a missing one. The same functions accept direct (IAM) invocations "
    '`{"context_id", "request", "correlation_id", "session_id"}` answered with `{"statusCode", "body"}`.'
)
SERVERS = [
    {"url": "http://127.0.0.1:3000", "description": "`retrieval serve` (dev token: `Bearer dev:acme`)"},
    {
        "url": "https://{api_id}.execute-api.{region}.amazonaws.com/{stage}",
        "description": "The deployed REST API.",
        "variables": {
            "api_id": {"default": "abcdef1234"},
            "region": {"default": "us-east-1"},
            "stage": {"default": "prod"},
        },
    },
]
SECURITY_SCHEME = "RetrievalAuthorizer"
SIGV4_SCHEME = "SigV4"
SECURITY_SCHEMES = {
    SIGV4_SCHEME: {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": (
            "AWS Signature Version 4 (API Gateway's AWS_IAM), what boto3 sends: the caller's IAM policy "
            "grants `execute-api:Invoke` on `.../POST/knowledgebases/<knowledge base id>/retrieve` per "
            "context. "
            "`retrieval serve` checks it with the dev credentials `dev-<context>` / `dev-secret`."
        ),
    },
    SECURITY_SCHEME: {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": (
            "Checked by the API Gateway authorizer (the sample HMAC REQUEST authorizer or a Cognito user "
            "pool), which passes the caller's allowed contexts to the function as claims."
        ),
    },
}


def _optional_header(name: str, description: str, pattern: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": {"type": "string", "pattern": pattern},
    }


CONTEXT_PARAM = _optional_header(
    wire.CONTEXT_HEADER,
    "Which of the caller's allowed contexts to act in; required when the claims list several.",
    CONTEXT_ID_PATTERN.pattern,
)
SESSION_PARAM = _optional_header(
    wire.SESSION_HEADER,
    "Retrieval session id, when the body carries no `session_id`.",
    SESSION_ID_JSON_PATTERN,
)
IDEMPOTENCY_PARAM = _optional_header(
    wire.IDEMPOTENCY_HEADER,
    "Idempotency key (needs a session), when the body carries no `idempotency_key`: the same key with the "
    "same request returns the first answer again without spending budget.",
    IDEMPOTENCY_KEY_PATTERN.pattern,
)
ERROR_DESCRIPTIONS = {
    "400": (
        "`next_token_invalid`: the token was altered or issued to another context; "
        "`next_token_mismatch`: the body differs from the first page's in more than top_k, session_id, "
        "session_limit, pack or include. Nothing was read or counted."
    ),
    "410": "`next_token_expired`: the token's ranking is gone (a token lives for the deployment's paging "
    "TTL, an hour by default); start again.",
    "401": "No context claim reached the function (no or invalid token).",
    "403": (
        "The chosen context is not among the caller's (an id of another context is not refused: "
        "it finds nothing, like a missing one)."
    ),
    "404": "Not found in the caller's context (a foreign id is answered the same way).",
    "409": (
        "The session already saw this query (`duplicate_query`), or a request with the same idempotency "
        "key is still running (`request_in_progress`)."
    ),
    "415": (
        "The body is not declared as JSON (or no Content-Type was sent): send "
        "`Content-Type: application/json`. Nothing was read or counted."
    ),
    "422": (
        "The request is malformed; the body names each offending field (`idempotency_key_reused`: the key "
        "belongs to another request). Nothing was changed."
    ),
    "429": "The session's query budget is spent.",
    "500": "An internal error; the body names nothing internal.",
    "503": "A backing service is unavailable; retry after `Retry-After` seconds.",
}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the same request again.",
        "schema": {"type": "integer", "minimum": 1},
    }
}
STATUSES_QUERY = {
    "type": "array",
    "items": {"type": "string", "enum": [str(status) for status in Status]},
    "minItems": 1,
}
KNOWLEDGE_BASE_ROUTE = (KNOWLEDGE_BASE_RESOURCE, "post")
"""Bedrock Knowledge Bases' Retrieve: its errors, security and request body are Bedrock's (``_document_
knowledge_base``), not this API's."""
GENERATE_OPERATIONS = {(route, "post") for route in GENERATE_ROUTES}
"""RetrieveAndGenerate and its stream: always Bedrock's ValidationException (``_document_generation``)."""
ROUTES: dict[tuple[str, str], dict[str, Any]] = {
    KNOWLEDGE_BASE_ROUTE: {"errors": (), "headers": [SESSION_PARAM]},
    **{operation: {"errors": (), "headers": []} for operation in sorted(GENERATE_OPERATIONS)},
    ("/v1/retrieve", "post"): {
        "errors": ("400", "401", "403", "409", "410", "415", "422", "429"),
        "headers": [SESSION_PARAM, IDEMPOTENCY_PARAM],
    },
    ("/v1/sessions/{session_id}", "get"): {
        "errors": ("401", "403", "404", "422"),
        "headers": [],
        # The handler checks the pattern after decoding the path once (API Gateway passes it encoded).
        "path": {"session_id": {"schema": {"type": "string", "pattern": SESSION_ID_JSON_PATTERN}}},
    },
    ("/v1/graph/path", "get"): {
        "errors": ("401", "403", "422"),
        "headers": [],
        # Comma-separated (style form, not exploded), each value one of the statuses: what the handler
        # accepts. Powertools would describe the raw string it reads.
        "query": {"statuses": {"schema": STATUSES_QUERY, "style": "form", "explode": False}},
    },
    ("/v1/why/{item_id}", "get"): {"errors": ("401", "403", "404", "422"), "headers": []},
    ("/v1/documents", "get"): {
        "errors": ("400", "401", "403", "422"),
        "headers": [],
        "descriptions": {
            "400": "`bad_request`: `limit` is not a whole number of at least 1, or `next_token` is not one "
            "this API issued for this `prefix` (`field` names which). Nothing was read."
        },
    },
    ("/v1/documents/{key}", "get"): {"errors": ("401", "403", "404", "422"), "headers": []},
}
"""Every route of the API, with the 4xx statuses it can answer (each also answers 500 and 503)."""
POWERTOOLS_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError", "ResponseValidationError")


class SpecMismatchError(Exception):
    """The resolvers and ``ROUTES`` disagree, or two resolvers define one schema name differently."""


class FieldProblem(BaseModel):
    field: str = Field(description="Dotted path of the offending field, or `(body)` for the whole body.")
    message: str


class ErrorBody(BaseModel):
    """Every error response; some errors add fields (``query_key``, ``limit``, ``used``...)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "error": "invalid_request",
                    "message": "top_k: Input should be a valid integer",
                    "fields": [{"field": "top_k", "message": "Input should be a valid integer"}],
                },
                {"error": "not_found", "message": "Item not found."},
            ]
        },
    )

    error: str = Field(description="Machine-readable code, e.g. `invalid_request`, `duplicate_query`.")
    message: str = Field(description="What happened and how to proceed.")
    fields: list[FieldProblem] | None = Field(default=None, description="422 only: each offending field.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", type=Path, help="Write here instead of stdout (e.g. docs/openapi.json).")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        text = render(build_spec())
    except UnknownFunctionError as error:
        print(f"retrieval openapi: {error}", file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


def render(spec: dict[str, Any]) -> str:
    """The committed form: stable key order, two-space indent, trailing newline."""
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"


def build_spec(functions_dir: Path = FUNCTIONS_DIR) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for function in API_FUNCTIONS:
        generated = json.loads(handler_module(function, functions_dir).app.get_openapi_json_schema())
        for path, operations in generated["paths"].items():
            if path in paths:
                raise SpecMismatchError(f"{path} is served by two functions")
            paths[path] = operations
        for name, schema in generated.get("components", {}).get("schemas", {}).items():
            if schemas.setdefault(name, schema) != schema:
                raise SpecMismatchError(f"schema {name} differs between functions")
    _document_routes(paths)
    for name in POWERTOOLS_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    schemas.update(_error_schemas())
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": version("retrieval-core"), "description": DESCRIPTION},
        "servers": SERVERS,
        "security": [{SECURITY_SCHEME: []}],
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(schemas.items())), "securitySchemes": SECURITY_SCHEMES},
    }


def _document_routes(paths: dict[str, Any]) -> None:
    served = {(path, method) for path, operations in paths.items() for method in operations}
    if served != ROUTES.keys():
        raise SpecMismatchError(f"routes served {sorted(served)} differ from ROUTES {sorted(ROUTES)}")
    for (path, method), route in ROUTES.items():
        operation = paths[path][method]
        if (path, method) == KNOWLEDGE_BASE_ROUTE:
            _document_knowledge_base(operation, route)
            continue
        if (path, method) in GENERATE_OPERATIONS:
            _document_generation(operation)
            continue
        overrides = {("query", name): value for name, value in route.get("query", {}).items()}
        overrides |= {("path", name): value for name, value in route.get("path", {}).items()}
        operation["parameters"] = [
            *({**p, **overrides.get((p["in"], p["name"]), {})} for p in operation.get("parameters", [])),
            CONTEXT_PARAM,
            *route["headers"],
        ]
        responses = operation["responses"]
        for status in (*route["errors"], "500", "503"):
            responses[status] = {
                "description": route.get("descriptions", {}).get(status, ERROR_DESCRIPTIONS[status]),
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
            }
        responses["503"]["headers"] = RETRY_AFTER
        operation["responses"] = dict(sorted(responses.items()))


def _document_knowledge_base(operation: dict[str, Any], route: dict[str, Any]) -> None:
    """Bedrock's Retrieve: SigV4 (or the authorizer's claims), botocore's request body, and each error
    with its ``x-amzn-ErrorType`` (the body is only ``{"message"}``)."""
    operation["security"] = [{SIGV4_SCHEME: []}, {SECURITY_SCHEME: []}]
    operation["description"] = (
        "Amazon Bedrock Knowledge Bases' `Retrieve` (botocore's `bedrock-agent-runtime` model): "
        "`knowledgeBaseId` is the ten-character id a context is served as (`retrieval knowledge-base "
        "create`), or its ARN. See docs/BEDROCK.md."
    )
    for parameter in operation["parameters"]:
        if parameter["in"] == "path":
            parameter["schema"] = {
                "type": "string",
                "pattern": f"{KNOWLEDGE_BASE_ID_PATTERN.pattern}|{KNOWLEDGE_BASE_ARN_PATTERN.pattern}",
            }
            parameter["description"] = (
                "The knowledge base id (or ARN) of the context to retrieve from; the caller must be "
                "granted it."
            )
    operation["parameters"] = [*operation["parameters"], *route["headers"]]
    operation["requestBody"] = {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/KnowledgeBaseRetrieveRequest"}}
        },
    }
    codes: dict[int, list[str]] = {}
    for _, status, code in (*ERROR_CODES, (None, *INTERNAL)):
        if code not in codes.setdefault(status, []):
            codes[status].append(code)
    responses = operation["responses"]
    responses.pop("422", None)  # Powertools' validation answer: this route answers ValidationException
    for status, names in codes.items():
        responses[str(status)]["headers"] = {
            ERROR_TYPE_HEADER: {"description": "The error code botocore raises.", "schema": {"enum": names}}
        }
    operation["responses"] = dict(sorted(responses.items()))


def _document_generation(operation: dict[str, Any]) -> None:
    """RetrieveAndGenerate (and its stream): SigV4 (or claims, as the Retrieve route), any body, and one
    answer: a ValidationException; a request no authority signed is refused before (403)."""
    operation["security"] = [{SIGV4_SCHEME: []}, {SECURITY_SCHEME: []}]
    operation["description"] = (
        "Amazon Bedrock's `RetrieveAndGenerate`, answered as Bedrock answers a request it will not serve: "
        "a `ValidationException` saying that this service retrieves and generation is the caller's."
    )
    operation["responses"]["400"]["headers"] = {
        ERROR_TYPE_HEADER: {
            "description": "The error code botocore raises.",
            "schema": {"enum": ["ValidationException"]},
        }
    }
    denied = {
        "description": "AccessDeniedException: unsigned, or signed by no granted caller (API Gateway's "
        "own 403 deployed).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorMessage"}}},
        "headers": {
            ERROR_TYPE_HEADER: {
                "description": "The error code.",
                "schema": {"enum": ["AccessDeniedException"]},
            }
        },
    }
    operation["responses"] = {"400": operation["responses"]["400"], "403": denied}


def _error_schemas() -> dict[str, Any]:
    schema = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    request = KnowledgeBaseRetrieveRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    return {
        **schema.pop("$defs"),
        "ErrorBody": schema,
        **request.pop("$defs"),
        "KnowledgeBaseRetrieveRequest": request,
    }
