"""Where ``retrieval serve`` meters a request as API Gateway would: after the authorizer, before the
function (``Gateway.dispatch``, on the event loop: a refusal never waits for a worker). The token routes
are metered per usage key (``usage_identifier_key`` of the context the request acts in: the one
``X-Context-Id`` selects among the token's, else its home) on that context's tier. An ``AWS_IAM`` route
has no authorizer, so no usage plan can key it: each is metered on one bucket for the route, Bedrock's
Retrieve by its own method throttle, any other (``RetrieveAndGenerate``, which is answered only to be
refused) by the stage's. A refusal is the template's ``THROTTLED`` or ``QUOTA_EXCEEDED`` gateway
response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retrieval_core.context import usage_identifier_key
from retrieval_core.entrypoints.bedrock import RESOURCE as KB_RESOURCE
from retrieval_core.entrypoints.token_contexts import selected_context

from ..cli.throttle import UsageThrottle, Verdict
from ..cli.tiers import KNOWLEDGE_BASE_ROUTE, STAGE_ROUTE, TierAssignment

RETRY_AFTER_SECONDS = "1"
"""The template's THROTTLED and QUOTA_EXCEEDED gateway responses send this ``Retry-After``."""
REFUSALS = {
    Verdict.THROTTLED: {"error": "throttled", "message": "Too Many Requests"},
    Verdict.QUOTA_EXCEEDED: {"error": "quota_exceeded", "message": "Limit Exceeded"},
}


@dataclass
class UsageGate:
    assignment: TierAssignment
    throttle: UsageThrottle = field(default_factory=UsageThrottle)

    def refusal(self, event: dict[str, Any]) -> dict[str, str] | None:
        """The 429 body for an authorized request over its limit, or None to let it through."""
        if event["requestContext"].get("authorizer") is None:  # an IAM route, SigV4-verified
            route = event["resource"]
            method_throttle = KNOWLEDGE_BASE_ROUTE if route == KB_RESOURCE else STAGE_ROUTE
            verdict = self.throttle.admit(route_key(event["httpMethod"], route), method_throttle)
        else:
            metered = metered_context(event)
            verdict = self.throttle.admit(usage_identifier_key(metered), self.assignment.tier_of(metered))
        return REFUSALS.get(verdict)


def route_key(method: str, resource: str) -> str:
    """The bucket of an IAM route: one per route, apart from every tenant's usage key."""
    return f"route:{method} {resource}"


def metered_context(event: dict[str, Any]) -> str:
    """The context a token route's request is metered as: the one ``X-Context-Id`` selects among the
    token's contexts, else the token's first (its home), decided as the deployed authorizer decides it
    (``token_contexts.selected_context``). The gateway has already denied a selection outside the token
    (403, metered on nothing, as API Gateway meters an authorizer's Deny)."""
    allowed = event["requestContext"]["authorizer"]["context_id"].split(",")
    return selected_context(allowed, event.get("headers"))
