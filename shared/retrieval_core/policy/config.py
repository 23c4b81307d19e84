"""Policy configuration as data: a validated model and a few named presets."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..config import Settings
from .errors import InvalidQueryError


class PolicyConfig(BaseModel):
    """How much a session may ask and how long its state lives."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    limit: int = Field(default=50, ge=1, description="Most accepted queries per session.")
    ttl_seconds: int = Field(default=24 * 3600, ge=60, description="Session lifetime after its last write.")

    @classmethod
    def from_settings(cls, settings: Settings) -> PolicyConfig:
        """The deployment's limit and TTL (``RETRIEVAL_SESSION_LIMIT``, ``RETRIEVAL_SESSION_TTL_SECONDS``)."""
        return cls(limit=settings.session_limit, ttl_seconds=settings.session_ttl_seconds)

    @classmethod
    def preset(cls, name: str) -> PolicyConfig:
        """A named preset; unknown names raise ``KeyError`` (a programming error, not a request error)."""
        return PRESETS[name]

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


PRESETS: dict[str, PolicyConfig] = {
    "default": PolicyConfig(),
    "strict": PolicyConfig(limit=10, ttl_seconds=3600),
}
