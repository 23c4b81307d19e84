"""The Retrieve route as registered: its path, its OpenAPI responses and what it needs of its function.

Serving a request (``serve.py``: the request's translation, its filters, the error table) is imported
by the first Knowledge Bases request, not with the retrieve function: a cold start mostly serves
``POST /v1/retrieve``, which needs none of it."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler import Response

from . import GENERATE_ROUTES, RESOURCE, ROUTE
from .knowledge_base import KnowledgeBase
from .shapes import ErrorMessage, KnowledgeBaseRetrieveResponse

__all__ = [
    "GENERATE_RESPONSES",
    "GENERATE_ROUTES",
    "RESOURCE",
    "RESPONSES",
    "ROUTE",
    "KnowledgeBase",
    "answer_retrieve",
    "generation_refused",
]

ERROR_RESPONSES = {
    400: "ValidationException (a malformed or unsupported request), ServiceQuotaExceededException (the "
    "session's budget is spent)",
    403: "AccessDeniedException: no authority granted this knowledge base (the same for one that does not "
    "exist)",
    404: "ResourceNotFoundException: the ranking nextToken pages through is gone (expired)",
    409: "ConflictException: the session already saw this query",
    429: "ThrottlingException: a backing service is unavailable; retry after Retry-After seconds",
    500: "InternalServerException: the message names nothing internal",
}
"""Each with the code in the x-amzn-ErrorType header, as botocore parses it."""
RESPONSES: dict[int, Any] = {
    200: {
        "description": "botocore's RetrieveResponse",
        "content": {"application/json": {"model": KnowledgeBaseRetrieveResponse}},
    },
    **{
        status: {"description": text, "content": {"application/json": {"model": ErrorMessage}}}
        for status, text in ERROR_RESPONSES.items()
    },
}
GENERATION_REFUSED = (
    "This service retrieves; generation is the caller's. Call Retrieve "
    "(POST /knowledgebases/{knowledgeBaseId}/retrieve, boto3's retrieve) and give its retrievalResults "
    "to your model yourself (bedrock-runtime Converse or InvokeModel, or any other)."
)
GENERATE_RESPONSES: dict[int, Any] = {
    400: {
        "description": f"ValidationException, always: {GENERATION_REFUSED}",
        "content": {"application/json": {"model": ErrorMessage}},
    }
}


def answer_retrieve(
    event: Mapping[str, Any], knowledge_base_id: str, base: KnowledgeBase, logger: logging.Logger | Any
) -> Response[str]:
    from .serve import serve_retrieve  # on the first Knowledge Bases request (the module docstring)

    return serve_retrieve(event, knowledge_base_id, base, logger)


def generation_refused() -> Response[str]:
    """RetrieveAndGenerate (and its stream) as a ValidationException that says what to do instead,
    the way botocore raises it, before anything is read or counted."""
    from .errors import ERROR_TYPE_HEADER

    return Response(
        400,
        "application/json",
        json.dumps({"message": GENERATION_REFUSED}),
        headers={ERROR_TYPE_HEADER: "ValidationException"},
    )
