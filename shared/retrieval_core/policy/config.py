"""Policy configuration as data: how much a session may ask and how long its state lives."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

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
