"""The gate `retrieval serve --tiers` puts after its dev authorizer: a token route is metered on the
context it acts in (the one X-Context-Id selects among the token's, else its home) and that context's
tier, Bedrock's route on the route's own bucket; no token shape escapes it."""

from __future__ import annotations

import json

from retrieval_dev.cli.throttle import UsageThrottle, Verdict
from retrieval_dev.cli.tiers import KNOWLEDGE_BASE_ROUTE, STAGE_ROUTE, TIERS, TierAssignment
from retrieval_dev.serving.routes import proxy_event
from retrieval_dev.serving.usage_gate import REFUSALS, UsageGate


class StoppedClock:
    def now(self) -> float:
        return 0.0

    def today(self) -> int:
        return 1


def _gate() -> UsageGate:
    clock = StoppedClock()
    return UsageGate(
        TierAssignment(default_tier="standard", contexts={"flood": "basic"}),
        UsageThrottle(now=clock.now, today=clock.today),
    )


def _event(token: str, path: str = "/v1/retrieve", selected: str | None = None) -> dict[str, object]:
    headers = {"Authorization": token} | ({"X-Context-Id": selected} if selected is not None else {})
    routed = proxy_event("POST", path, headers, "{}")
    assert routed is not None
    return routed[1]


def _refusals(gate: UsageGate, event: dict[str, object], times: int) -> list[dict[str, str] | None]:
    return [gate.refusal(event) for _ in range(times)]


def test_a_flooding_context_is_refused_past_its_burst_and_others_are_not() -> None:
    gate = _gate()
    burst = TIERS["basic"].burst
    flood = _refusals(gate, _event("Bearer dev:flood"), burst + 3)
    assert flood == [None] * burst + [REFUSALS[Verdict.THROTTLED]] * 3
    assert (
        _refusals(gate, _event("Bearer dev:quiet"), TIERS["standard"].burst)
        == [None] * TIERS["standard"].burst
    )


def test_a_token_of_several_contexts_is_metered_on_its_first_without_a_selection() -> None:
    gate = _gate()
    _refusals(gate, _event("Bearer dev:flood"), TIERS["basic"].burst)
    assert gate.refusal(_event("Bearer dev:flood,quiet")) == REFUSALS[Verdict.THROTTLED]
    assert gate.refusal(_event("Bearer dev:quiet,flood")) is None


def test_x_context_id_is_metered_as_the_context_it_selects() -> None:
    gate = _gate()
    burst = TIERS["basic"].burst
    answers = _refusals(gate, _event("Bearer dev:quiet,flood", selected="flood"), burst + 2)
    assert answers == [None] * burst + [REFUSALS[Verdict.THROTTLED]] * 2
    assert gate.refusal(_event("Bearer dev:flood")) == REFUSALS[Verdict.THROTTLED]
    assert gate.refusal(_event("Bearer dev:quiet,flood", selected="quiet")) is None


def test_a_selection_outside_the_token_is_denied_before_it_is_metered() -> None:
    import asyncio

    from retrieval_dev.serving.gateway import Gateway, Request
    from retrieval_dev.serving.routes import ACCESS_DENIED_BODY
    from retrieval_dev.serving.server import ServeLimits

    gate = _gate()
    gateway = Gateway(ServeLimits(), gate)
    burst = TIERS["basic"].burst
    headers = {"Authorization": "Bearer dev:flood", "X-Context-Id": "quiet"}
    foreign = Request("POST", "/v1/retrieve", headers, "{}")
    try:  # every answer comes before any function runs (a function run would need the stack)
        answers = [asyncio.run(gateway.dispatch(foreign)) for _ in range(burst + 2)]
    finally:
        gateway.close()
    assert {(answer.status, answer.body) for answer in answers} == {(403, json.dumps(ACCESS_DENIED_BODY))}
    # Denied, not metered (as API Gateway meters an authorizer's Deny): the home's bucket is still whole.
    assert _refusals(gate, _event("Bearer dev:flood"), burst) == [None] * burst


def test_a_token_with_an_empty_or_malformed_member_is_no_token() -> None:
    for token in ("Bearer dev:,flood", "Bearer dev:flood,", "Bearer dev:quiet,,flood", "Bearer dev:-x,flood"):
        assert _event(token)["requestContext"]["authorizer"] is None, token  # type: ignore[index]
    assert _event("Bearer dev:quiet,flood")["requestContext"]["authorizer"] is not None  # type: ignore[index]


def test_bedrock_s_route_has_one_bucket_for_every_knowledge_base() -> None:
    gate = _gate()
    burst = KNOWLEDGE_BASE_ROUTE.burst
    answers = [gate.refusal(_event("", f"/knowledgebases/kb{n % 3}/retrieve")) for n in range(burst + 1)]
    assert answers == [None] * burst + [REFUSALS[Verdict.THROTTLED]]


def test_every_iam_route_is_metered_on_its_own_bucket() -> None:
    # RetrieveAndGenerate's routes carry no authorizer either: they were read as a token route's and
    # raised TypeError (a 500 from `retrieval serve --tiers`).
    from retrieval_core.entrypoints.bedrock import GENERATE_ROUTES

    gate = _gate()
    for route in GENERATE_ROUTES:
        answers = [gate.refusal(_event("", route)) for _ in range(STAGE_ROUTE.burst + 1)]
        assert answers == [None] * STAGE_ROUTE.burst + [REFUSALS[Verdict.THROTTLED]], route
    assert gate.refusal(_event("", "/knowledgebases/kb/retrieve")) is None  # a bucket of its own


def test_the_gateway_answers_a_spent_bucket_with_the_429_before_any_function_runs() -> None:
    import asyncio

    from retrieval_dev.serving.gateway import Gateway, Request, cors_for
    from retrieval_dev.serving.server import ServeLimits

    gate = _gate()
    gateway = Gateway(ServeLimits(), gate)
    _refusals(gate, _event("Bearer dev:flood"), TIERS["basic"].burst)  # spend the bucket
    request = Request("POST", "/v1/retrieve", {"Authorization": "Bearer dev:flood"}, "{}")
    try:
        answer = asyncio.run(gateway.dispatch(request))  # a function run would need the stack
    finally:
        gateway.close()
    page = "https://app.example.com"  # as serve --cors-origin grants it, on every answer
    headers = {name.lower(): value for name, value in cors_for(answer, page, frozenset({page})).headers}
    assert answer.status == 429
    assert headers["retry-after"] == "1" and headers["access-control-allow-origin"] == page
    assert json.loads(answer.body) == REFUSALS[Verdict.THROTTLED]
