"""Errors as Bedrock answers them: the status and ``x-amzn-ErrorType`` of the modelled exception
(botocore raises ``ClientError`` with that code) and a body ``{"message": ...}``.

The table follows ``entrypoints.status``: most specific first, the first class an error is an instance
of decides, anything else is an ``InternalServerException`` whose message names nothing internal."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from ...errors import (
    BackendUnavailableError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RetrievalError,
    UnauthenticatedError,
)
from ...knowledge_bases.jobs import IngestionJobConflictError
from ...models.errors import FilterNotApplicableError
from ...policy.errors import DuplicateQueryError, SessionBudgetExhaustedError
from ...retrieval.errors import NextTokenExpiredError
from ..errors import UnsupportedMediaTypeError
from ..responses import describe_validation
from .names import bedrock_key, bedrock_message, bedrock_path

ERROR_TYPE_HEADER = "x-amzn-ErrorType"
ACCESS_DENIED_MESSAGE = "You are not authorized to retrieve from this knowledge base."
"""One message for every refusal of access: no credentials, a context not granted, one that does not
exist, an id that is not even well formed. Nothing tells them apart."""
INTERNAL_MESSAGE = "An internal error occurred."


ERROR_CODES: tuple[tuple[type[Exception], int, str], ...] = (
    (DuplicateQueryError, 409, "ConflictException"),
    (IngestionJobConflictError, 409, "ConflictException"),
    # A spent session budget stays spent: a quota, which botocore does not retry.
    (SessionBudgetExhaustedError, 400, "ServiceQuotaExceededException"),
    # The ranking the token pages through is gone (past its lifetime).
    (NextTokenExpiredError, 404, "ResourceNotFoundException"),
    (InvalidRequestError, 400, "ValidationException"),
    (UnsupportedMediaTypeError, 400, "ValidationException"),
    (ValidationError, 400, "ValidationException"),
    (UnauthenticatedError, 403, "AccessDeniedException"),
    (ForbiddenError, 403, "AccessDeniedException"),
    (NotFoundError, 404, "ResourceNotFoundException"),
    # Retry later (Retry-After): botocore's retry handlers back off and retry a throttle.
    (BackendUnavailableError, 429, "ThrottlingException"),
)
INTERNAL = (500, "InternalServerException")


def bedrock_error(
    error: Exception, logger: logging.Logger | Any
) -> tuple[int, dict[str, str], dict[str, Any]]:
    """Status, headers and body for any exception raised while serving a Retrieve request."""
    status, code = next(
        ((status, code) for kind, status, code in ERROR_CODES if isinstance(error, kind)), INTERNAL
    )
    headers = {ERROR_TYPE_HEADER: code}
    if status == INTERNAL[0]:
        logger.exception("knowledge base retrieve failed", exc_info=error)
        return status, headers, {"message": INTERNAL_MESSAGE}
    if isinstance(error, BackendUnavailableError):
        logger.warning("backend unavailable", exc_info=error)
        headers["Retry-After"] = str(error.retry_after_seconds)
    return status, headers, {"message": _message(error)}


def _message(error: Exception) -> str:
    if isinstance(error, UnauthenticatedError | ForbiddenError):
        return ACCESS_DENIED_MESSAGE
    if isinstance(error, FilterNotApplicableError):
        where, key = bedrock_path(error.details["field"]), bedrock_key(error.details["key"])
        return f"{where}: cannot filter '{key}': {error.details['reason']}"
    if isinstance(error, ValidationError):
        return str(describe_validation(error.errors())["message"])
    if isinstance(error, BackendUnavailableError):
        return str(BackendUnavailableError().to_body()["message"])
    assert isinstance(error, RetrievalError)
    return bedrock_message(error.message)
