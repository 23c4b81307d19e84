"""Errors as responses. A deliberate error keeps its status and code; anything else is a bare 500 whose
body names nothing internal (the details go to the log, with the correlation id).

A request the door refuses is the caller's fault (422, naming each field): the door is where a request
becomes its model (``api.door_validated``, Powertools' own parameter validation), and says so by raising
``RequestValidationError``. A pydantic ``ValidationError`` raised anywhere else (a hit built from a stored
item the model refuses, a model our own code built wrong) is ours: logged and answered 500, never
reported to the caller as their invalid request."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from ..errors import BackendUnavailableError, RetrievalError
from .status import INTERNAL_ERROR, status_of

INTERNAL_ERROR_BODY = {"error": "internal_error", "message": "An internal error occurred."}
DOOR_LOCATIONS = ("body", "query", "path", "header")
"""Where Powertools says a parameter came from: left out of the field's name."""


def describe_validation(
    errors: Sequence[Mapping[str, Any]], *, skip_prefix: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A 422 body naming each offending field (``top_k``, ``weights.document``, ``filter.all_of[2].gte``)."""
    fields = []
    for error in errors:
        location = list(error.get("loc", ()))
        while location and location[0] in skip_prefix:
            location = location[1:]
        message = str(error.get("msg", "is invalid"))
        if error.get("type") == "json_invalid":  # Powertools puts the parse position in ``loc``
            location = []
            message = f"the body is not valid JSON: {(error.get('ctx') or {}).get('error', message)}"
        fields.append({"field": field_path(location) or "(body)", "message": message})
    summary = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
    return {"error": "invalid_request", "message": summary, "fields": fields}


def error_status_body(
    error: Exception, logger: logging.Logger | Any
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Status, body and extra headers for any exception raised while serving a request."""
    if isinstance(error, RetrievalError):
        headers = {}
        status = status_of(error)
        if isinstance(error, BackendUnavailableError):
            logger.warning("backend unavailable", exc_info=error)
            headers["Retry-After"] = str(error.retry_after_seconds)
        elif status == INTERNAL_ERROR:
            logger.error("request failed", exc_info=error)
            return INTERNAL_ERROR, dict(INTERNAL_ERROR_BODY), {}
        return status, error.to_body(), headers
    if isinstance(error, RequestValidationError):
        return 422, describe_validation(list(error.errors()), skip_prefix=DOOR_LOCATIONS), {}
    # A ValidationError lands here too: raised past the door, it is a fault of ours.
    logger.exception("unexpected error", exc_info=error)
    return INTERNAL_ERROR, dict(INTERNAL_ERROR_BODY), {}


def field_path(location: list[Any]) -> str:
    """``["filter", "all_of", 2, "gte"]`` as ``filter.all_of[2].gte``."""
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
