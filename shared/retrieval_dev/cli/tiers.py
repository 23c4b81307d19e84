"""Usage tiers: how fast, how much at once and how much a day one context may call the API.

One source of truth: the deployed API's usage plans (``template.yaml``, ``UsagePlanBasic`` ...) carry
these figures and ``tests/unit/test_template_fairshare.py`` holds them equal; ``retrieval serve --tiers``
applies them locally with a token bucket per usage key (``throttle.py``), as API Gateway does per API
key. Which tier a context is on is an assignment: deployed, the API key of
``usage_identifier_key(context)`` attached to the tier's usage plan; locally, a JSON file
(``dev/tiers.json``, ``TierAssignment``). docs/FAIRSHARE.md says how to put a context on a tier.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TierName = Literal["basic", "standard", "premium"]


class Tier(BaseModel):
    """One usage plan: API Gateway's ``Throttle`` (rate, burst) and optional daily ``Quota``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rate_per_second: float = Field(gt=0, description="Steady requests per second (the bucket's refill).")
    burst: int = Field(ge=1, description="Requests that may arrive at once (the bucket's size).")
    daily_quota: int | None = Field(
        default=None, ge=1, description="Requests per UTC day; None = no quota (rate and burst alone)."
    )


TIERS: dict[TierName, Tier] = {
    # A trial or batch tenant: small, and quota-bound so a runaway loop stops within the day. Its
    # admitted requests at their most expensive (bounded work, docs/FAIRSHARE.md) must stay a small share
    # of what the quiet tenants use: `make load` measures exactly that.
    "basic": Tier(rate_per_second=1, burst=2, daily_quota=20_000),
    "standard": Tier(rate_per_second=20, burst=40),
    "premium": Tier(rate_per_second=50, burst=100),
}
"""The named presets. The API stage's own throttle (``ThrottlingRateLimit``/``ThrottlingBurstLimit``)
is the ceiling of all tenants together, so the largest tier stays at or below it."""


KNOWLEDGE_BASE_ROUTE = Tier(rate_per_second=20, burst=40)
"""Bedrock's Retrieve route (``AWS_IAM``: no authorizer, so no usage plan can key it): its own method
throttle in the stage's ``MethodSettings``, one bucket for the route, apart from the tenants' plans."""

STAGE_ROUTE = Tier(rate_per_second=50, burst=100)
"""Any other ``AWS_IAM`` route (``RetrieveAndGenerate`` and its stream, refused by the function): the
stage's own throttle (``MethodSettings`` ``/*``: ``ThrottlingRateLimit``/``ThrottlingBurstLimit`` at their
defaults), one bucket for the route."""


class TierAssignment(BaseModel):
    """Which tier each context is on; a context not named is on ``default_tier`` (deployed, a context
    without an API key is refused 403 instead: onboarding creates its key)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default_tier: TierName = "standard"
    contexts: dict[str, TierName] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_context_ids(self) -> TierAssignment:
        from retrieval_core.context import CONTEXT_ID_PATTERN

        bad = sorted(ctx for ctx in self.contexts if not CONTEXT_ID_PATTERN.fullmatch(ctx))
        if bad:
            raise ValueError(f"not context ids: {', '.join(bad)}")
        return self

    def tier_of(self, context_id: str) -> Tier:
        return TIERS[self.contexts.get(context_id, self.default_tier)]

    @classmethod
    def from_file(cls, path: Path) -> TierAssignment:
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
