"""Errors the retrieval policy raises. ``PolicyError`` is their root; a subclass also inherits the
general kind it is (not found, forbidden, invalid), which decides its HTTP status at the edge.

Messages tell an agent what happened and how to proceed; they never name a storage type, a table or
another context.
"""

from __future__ import annotations

from ..errors import ForbiddenError, InvalidRequestError, NotFoundError, RetrievalError


class PolicyError(RetrievalError):
    """Root of every error the policy raises (never raised itself)."""


class InvalidQueryError(PolicyError, InvalidRequestError):
    """The query, the session id or a limit is malformed; nothing was recorded."""


class DuplicateQueryError(PolicyError):
    """The session already saw this query; asking again would spend budget on a known answer."""

    code = "duplicate_query"

    def __init__(self, query_key: str, original_sequence: int | None, *, kept: bool = True) -> None:
        if not kept:
            message = (
                f"This request was answered in this session as query #{original_sequence}, but its "
                "answer was not kept; cite that receipt's sources or ask a different question."
            )
        elif original_sequence is None:
            message = (
                "This query is being answered in this session right now; "
                "wait for that answer or ask a different question."
            )
        else:
            message = (
                f"This query was already asked in this session as query #{original_sequence}; "
                "cite that receipt's sources or ask a different question."
            )
        super().__init__(message, query_key=query_key, original_sequence=original_sequence)
        self.original_sequence = original_sequence


class RequestInProgressError(PolicyError):
    """A request with the same idempotency key is still running; its answer can be fetched once it ends."""

    code = "request_in_progress"

    def __init__(self) -> None:
        super().__init__(
            "A request with this idempotency key is still being answered; "
            "send it again in a moment to get its answer."
        )


class IdempotencyKeyReusedError(PolicyError, InvalidRequestError):
    """The idempotency key was used for a different request in this session; nothing was run."""

    code = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__(
            "This idempotency key was already used for a different request in this session; "
            "use a new key for a new request.",
            field="idempotency_key",
        )


class SessionBudgetExhaustedError(PolicyError):
    """The session has no query left; the query was not run and nothing was recorded."""

    code = "session_budget_exhausted"

    def __init__(self, limit: int, used: int) -> None:
        super().__init__(
            f"This session has used {used} of its {limit} queries; "
            "answer with the sources already retrieved or start a new session.",
            limit=limit,
            used=used,
        )
        self.limit = limit
        self.used = used


class QueryForbiddenError(PolicyError, ForbiddenError):
    """The query names a resource the caller may not use; nothing was recorded."""

    def __init__(self) -> None:
        super().__init__("The query names a resource outside the caller's context.")


class UnusableResultError(PolicyError):
    """The retrieval returned something the policy cannot cite (a bug, reported as a plain 500)."""

    def __init__(self) -> None:
        super().__init__("The retrieval returned an unusable result.")


class SessionNotFoundError(PolicyError, NotFoundError):
    """No such session in the caller's context (a foreign session looks exactly like this)."""

    def __init__(self) -> None:
        super().__init__("Session not found.")
