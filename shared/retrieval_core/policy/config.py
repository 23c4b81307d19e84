"""Policy configuration as data: how much a session may ask and how long its state lives."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidQueryError

DEFAULT_SESSION_LIMIT = 50
DEFAULT_SESSION_TTL_SECONDS = 24 * 3600


class PolicyConfig(BaseModel):
    """How much a session may ask and how long its state lives. A deployment's come from ``Settings``
    (``RETRIEVAL_SESSION_LIMIT``, ``RETRIEVAL_SESSION_TTL_SECONDS``), read by the composition root:
    ``config`` imports these defaults, so this package does not import ``config`` back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    limit: int = Field(default=DEFAULT_SESSION_LIMIT, ge=1, description="Most accepted queries per session.")
    ttl_seconds: int = Field(
        default=DEFAULT_SESSION_TTL_SECONDS, ge=60, description="Session lifetime after its last write."
    )

    def effective_limit(self, claim_limit: int | None, request_limit: int | None) -> int:
        """The configured limit, lowered by the caller's claim and then by the request; never raised."""
        limits = [self.limit]
        for name, value in (("session limit claim", claim_limit), ("session_limit", request_limit)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidQueryError(f"{name} must be a positive integer.")
            limits.append(value)
        return min(limits)
