"""The Retrieve route: who is calling, the request translated, the one retrieve service, the answer
translated; every failure answered the way botocore parses it (``errors.py``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler import Response

from ...errors import InvalidRequestError
from ...retrieval.requests import checked_session_id
from ...retrieval.responses import RetrieveResponse
from ..bodies import parse_json, require_json
from ..headers import SESSION_HEADER
from . import RESOURCE, ROUTE
from .answers import KnowledgeBaseRetrieveResponse, retrieve_answer
from .caller import knowledge_base_caller
from .errors import ErrorMessage, bedrock_error
from .request import retrieve_request

__all__ = ["RESOURCE", "RESPONSES", "ROUTE", "KnowledgeBase", "answer_retrieve"]

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


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """What the route needs of its function: the retrieve service's call, the claim that names contexts,
    the mode a request without ``overrideSearchType`` gets, and the rerank model a
    ``rerankingConfiguration`` may name (``none``: no reranking on request)."""

    retrieve: Callable[..., RetrieveResponse]
    context_claim: str
    default_mode: str
    rerank_model: str


def answer_retrieve(
    event: Mapping[str, Any], knowledge_base_id: str, base: KnowledgeBase, logger: logging.Logger | Any
) -> Response[str]:
    try:
        caller = knowledge_base_caller(event, knowledge_base_id, base.context_claim)
        headers = {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}
        require_json("POST", headers)
        request = retrieve_request(_body(event.get("body")), base.default_mode, base.rerank_model)
        response = base.retrieve(
            caller.context,
            request,
            session_id=checked_session_id(headers.get(SESSION_HEADER.lower()), SESSION_HEADER),
            claim_limit=caller.claim_session_limit,
            principal=caller.principal,
        )
    except Exception as error:
        status, error_headers, error_body = bedrock_error(error, logger)
        return Response(status, "application/json", json.dumps(error_body), headers=error_headers)
    return Response(200, "application/json", retrieve_answer(response).model_dump_json(exclude_none=True))


def _body(text: str | None) -> Any:
    if not text:
        return None
    try:
        return parse_json(text)
    except json.JSONDecodeError as error:
        raise InvalidRequestError(f"the body is not valid JSON: {error.msg}") from None
