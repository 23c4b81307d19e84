"""Serving one Retrieve request: who is calling, the request translated, the one retrieve service, the
answer translated; every failure answered the way botocore parses it (``errors.py``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import Response

from ...errors import InvalidRequestError
from ...retrieval.requests import checked_session_id
from ..wire import SESSION_HEADER, parse_json, require_json
from .answers import retrieve_answer
from .caller import knowledge_base_caller
from .errors import bedrock_error
from .request import retrieve_request

if TYPE_CHECKING:
    from .knowledge_base import KnowledgeBase


def serve_retrieve(
    event: Mapping[str, Any], knowledge_base_id: str, base: KnowledgeBase, logger: logging.Logger | Any
) -> Response[str]:
    try:
        caller = knowledge_base_caller(
            event, knowledge_base_id, base.context_claim, base.context_of, base.region
        )
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
