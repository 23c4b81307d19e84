"""The one table from error to HTTP status. Domain errors carry a machine-readable ``code`` and a
message; which status a caller sees is the edge's decision, made here and nowhere else."""

from __future__ import annotations

from ..errors import (
    BackendUnavailableError,
    BadRequestError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RetrievalError,
    UnauthenticatedError,
)
from ..policy.errors import DuplicateQueryError, RequestInProgressError, SessionBudgetExhaustedError
from ..retrieval.errors import NextTokenExpiredError, NextTokenInvalidError, NextTokenMismatchError
from .errors import UnsupportedMediaTypeError

HTTP_STATUS: tuple[tuple[type[RetrievalError], int], ...] = (
    # Most specific first: the first class the error is an instance of decides.
    (DuplicateQueryError, 409),
    (RequestInProgressError, 409),
    (SessionBudgetExhaustedError, 429),
    (UnsupportedMediaTypeError, 415),
    # Paging tokens: 400 for one not issued to this caller (altered, foreign) or to another body, 410
    # for one whose ranking is gone. Before the general 422 they specialise.
    (NextTokenInvalidError, 400),
    (NextTokenMismatchError, 400),
    (NextTokenExpiredError, 410),
    (BadRequestError, 400),
    (InvalidRequestError, 422),
    (UnauthenticatedError, 401),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (BackendUnavailableError, 503),
)
"""Every other error, deliberate or not, is a 500 whose body names nothing internal."""

INTERNAL_ERROR = 500


def status_of(error: BaseException) -> int:
    return next((status for kind, status in HTTP_STATUS if isinstance(error, kind)), INTERNAL_ERROR)
