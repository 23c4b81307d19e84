"""Errors retrieval raises."""

from __future__ import annotations

from ..errors import InvalidRequestError, RetrievalError


class CapabilityMissingError(RetrievalError):
    """Internal signal: the deployment cannot serve this mode. Never leaves the ranking pipeline, which
    answers with a typed-empty result (``supported: false``) instead."""

    def __init__(self, capability: str) -> None:
        super().__init__(capability)


class NextTokenInvalidError(InvalidRequestError):
    """The token is malformed, altered, or was issued to another context: the three are one answer, so
    a token reveals nothing about contexts it was not issued to."""

    code = "next_token_invalid"

    def __init__(self) -> None:
        super().__init__("next_token is not a token this API issued to you; start again without it.")


class NextTokenExpiredError(InvalidRequestError):
    """The token (and the ranking it pages through) is past its lifetime."""

    code = "next_token_expired"

    def __init__(self) -> None:
        super().__init__("next_token has expired; start again without it.")


class NextTokenMismatchError(InvalidRequestError):
    """The token is genuine but was issued for another request body."""

    code = "next_token_mismatch"

    def __init__(self) -> None:
        super().__init__(
            "next_token belongs to a different request; send the same body as the first page "
            "(only top_k, session_id, session_limit and pack may change)."
        )
