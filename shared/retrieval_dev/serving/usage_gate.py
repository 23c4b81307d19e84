"""Where ``retrieval serve`` meters a request as API Gateway would: after the authorizer, before the
function (``Gateway.dispatch``, on the event loop: a refusal never waits for a worker). The token routes
are metered per usage key (the authorizer's ``usageIdentifierKey``: the token's home context) on that
context's tier; Bedrock's IAM route by its method throttle, one bucket for the route. A refusal is the
template's ``THROTTLED`` or ``QUOTA_EXCEEDED`` gateway response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retrieval_core.context import usage_identifier_key
from retrieval_core.entrypoints.bedrock import RESOURCE as KB_RESOURCE
from retrieval_core.errors import InvalidRequestError

from ..cli.throttle import UsageThrottle, Verdict
from ..cli.tiers import KNOWLEDGE_BASE_ROUTE, TierAssignment

RETRY_AFTER_SECONDS = "1"
"""The template's THROTTLED and QUOTA_EXCEEDED gateway responses send this ``Retry-After``."""
REFUSALS = {
    Verdict.THROTTLED: {"error": "throttled", "message": "Too Many Requests"},
    Verdict.QUOTA_EXCEEDED: {"error": "quota_exceeded", "message": "Limit Exceeded"},
}
KB_ROUTE_KEY = f"route:POST {KB_RESOURCE}"


@dataclass
class UsageGate:
    assignment: TierAssignment
    throttle: UsageThrottle = field(default_factory=UsageThrottle)

    def refusal(self, event: dict[str, Any]) -> dict[str, str] | None:
        """The 429 body for an authorized request over its limit, or None to let it through."""
        if event["resource"] == KB_RESOURCE:
            verdict = self.throttle.admit(KB_ROUTE_KEY, KNOWLEDGE_BASE_ROUTE)
        else:
            home = event["requestContext"]["authorizer"]["context_id"].split(",")[0]
            try:
                key = usage_identifier_key(home)
            except InvalidRequestError:
                return None  # no such context: the function refuses it (4xx), as the authorizer would
            verdict = self.throttle.admit(key, self.assignment.tier_of(home))
        return REFUSALS.get(verdict)
