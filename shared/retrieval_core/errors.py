"""The root error type and the kinds of failure every entry point understands.

Each error carries a machine-readable ``code`` and a message; the HTTP status each kind maps to lives
in one table at the edge (``entrypoints.status``). Errors that only one package raises subclass these
in that package's ``errors.py``. Messages must never name another context, a storage type, an index or
an internal key.
"""

from __future__ import annotations

from typing import Any


class RetrievalError(Exception):
    """Root of every error this package raises on purpose."""

    code: str = "internal_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}


class InvalidRequestError(RetrievalError):
    """The request is malformed; nothing was read or changed."""

    code = "invalid_request"


class BadRequestError(InvalidRequestError):
    """A query parameter that is not what it must be (a malformed page token, a negative page size): a
    400 that names the field, as a malformed retrieve ``next_token`` is."""

    code = "bad_request"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", field=field)


class UnauthenticatedError(RetrievalError):
    """No usable caller identity (no authorizer claim)."""

    code = "unauthenticated"


class ForbiddenError(RetrievalError):
    """The caller is known but may not act in the requested context or on the resource."""

    code = "forbidden"


class NotFoundError(RetrievalError):
    """The resource does not exist in the caller's context (foreign ids look exactly like this)."""

    code = "not_found"


class BackendUnavailableError(RetrievalError):
    """A backing store failed or timed out; the caller may retry later."""

    code = "backend_unavailable"
    retry_after_seconds = 1

    def __init__(self, message: str = "A backing service is temporarily unavailable.") -> None:
        # Custom messages are for operators (CLI); API bodies always use the generic one.
        super().__init__(message)

    def to_body(self) -> dict[str, Any]:
        return {"error": self.code, "message": "A backing service is temporarily unavailable."}


class DeadlineExceededError(BackendUnavailableError):
    """The request's deadline passed (or would pass) before a backend answered: a 503 sent in time,
    rather than a function timeout."""

    def __init__(self) -> None:
        super().__init__("The request's deadline passed before the backends answered.")


class IncompleteBatchError(RetrievalError):
    """A batched write or read left work unprocessed after every retry round: the items it carried are
    reported as not written (a re-run repairs them), and the load goes on, unlike an outage."""
