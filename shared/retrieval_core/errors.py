"""The root error type and the HTTP-shaped errors every entry point understands.

Each subclass carries the status code and machine-readable ``code`` an entry point turns into a
response. Errors that only one module raises (policy, packing) subclass these next to that module.
Messages must never name another context, a storage type, an index or an internal key.
"""

from __future__ import annotations

from typing import Any


class RetrievalError(Exception):
    """Root of every error this package raises on purpose."""

    status_code: int = 500
    code: str = "internal_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}


class InvalidRequestError(RetrievalError):
    """The request is malformed; nothing was read or changed."""

    status_code = 422
    code = "invalid_request"


class UnauthenticatedError(RetrievalError):
    """No usable caller identity (no authorizer claim)."""

    status_code = 401
    code = "unauthenticated"


class ForbiddenError(RetrievalError):
    """The caller is known but may not act in the requested context or on the resource."""

    status_code = 403
    code = "forbidden"


class NotFoundError(RetrievalError):
    """The resource does not exist in the caller's context (foreign ids look exactly like this)."""

    status_code = 404
    code = "not_found"


class BackendUnavailableError(RetrievalError):
    """A backing store failed or timed out; the caller may retry later."""

    status_code = 503
    code = "backend_unavailable"
    retry_after_seconds = 1

    def __init__(self, message: str = "A backing service is temporarily unavailable.") -> None:
        # Custom messages are for operators (CLI); API bodies always use the generic one.
        super().__init__(message)

    def to_body(self) -> dict[str, Any]:
        return {"error": self.code, "message": "A backing service is temporarily unavailable."}
