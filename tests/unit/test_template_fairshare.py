"""template.yaml's fair share (docs/FAIRSHARE.md): the API meters each call on the API key the
authorizer names, one usage plan per tier with the figures of ``retrieval_dev/cli/tiers.py`` (one source
of truth), Bedrock's IAM route on its own method throttle, throttles answered as the local gate answers
them, and Contributor Insights rules that rank contexts from the access log."""

from __future__ import annotations

import json
from typing import Any

import pytest
from retrieval_dev.cli.throttle import Verdict
from retrieval_dev.cli.tiers import KNOWLEDGE_BASE_ROUTE, STAGE_ROUTE, TIERS
from retrieval_dev.serving.usage_gate import REFUSALS, RETRY_AFTER_SECONDS
from test_template import resource, template
from test_template_operations import translated

PLANS = {"basic": "UsagePlanBasic", "standard": "UsagePlanStandard", "premium": "UsagePlanPremium"}
RULES = ("Requests", "Latency", "Throttles", "Errors")


def test_the_api_takes_its_keys_from_the_authorizer() -> None:
    assert resource("RetrievalApi")["Properties"]["ApiKeySourceType"] == "AUTHORIZER"
    rest_api = next(r for r in translated()["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi")
    assert rest_api["Properties"]["ApiKeySourceType"] == "AUTHORIZER"


def test_every_tier_is_a_usage_plan_with_its_figures() -> None:
    assert set(PLANS) == set(TIERS)
    for tier_name, plan_name in PLANS.items():
        tier, plan = TIERS[tier_name], resource(plan_name)  # type: ignore[index]
        assert plan["Type"] == "AWS::ApiGateway::UsagePlan"
        props = plan["Properties"]
        assert props["Throttle"] == {"RateLimit": tier.rate_per_second, "BurstLimit": tier.burst}
        expected_quota = None if tier.daily_quota is None else {"Limit": tier.daily_quota, "Period": "DAY"}
        assert props.get("Quota") == expected_quota
        assert props["ApiStages"] == [
            {"ApiId": {"Ref": "RetrievalApi"}, "Stage": {"Ref": "RetrievalApi.Stage"}}
        ]


def test_no_tier_exceeds_the_stage_ceiling() -> None:
    parameters = template()["Parameters"]
    assert max(t.rate_per_second for t in TIERS.values()) <= parameters["ThrottlingRateLimit"]["Default"]
    assert max(t.burst for t in TIERS.values()) <= parameters["ThrottlingBurstLimit"]["Default"]


def test_serve_meters_the_other_iam_routes_on_the_stage_throttle() -> None:
    parameters = template()["Parameters"]
    assert (STAGE_ROUTE.rate_per_second, STAGE_ROUTE.burst) == (
        parameters["ThrottlingRateLimit"]["Default"],
        parameters["ThrottlingBurstLimit"]["Default"],
    )


def test_token_routes_require_the_usage_key_and_bedrock_s_route_has_its_own_throttle() -> None:
    body = resource("RetrievalApi")["Properties"]["DefinitionBody"]
    assert body["securityDefinitions"]["UsageKey"] == {"type": "apiKey", "name": "x-api-key", "in": "header"}
    settings = resource("RetrievalApi")["Properties"]["MethodSettings"]
    (kb_route,) = [m for m in settings if "knowledgebases" in m["ResourcePath"]]
    assert kb_route["ResourcePath"] == "/~1knowledgebases~1{knowledgeBaseId}~1retrieve"
    assert (kb_route["HttpMethod"], kb_route["ThrottlingRateLimit"], kb_route["ThrottlingBurstLimit"]) == (
        "POST",
        KNOWLEDGE_BASE_ROUTE.rate_per_second,
        KNOWLEDGE_BASE_ROUTE.burst,
    )


@pytest.mark.parametrize(
    ("response", "verdict"), [("THROTTLED", Verdict.THROTTLED), ("QUOTA_EXCEEDED", Verdict.QUOTA_EXCEEDED)]
)
def test_a_throttle_is_answered_as_serve_answers_it(response: str, verdict: Verdict) -> None:
    gateway = resource("RetrievalApi")["Properties"]["GatewayResponses"][response]
    assert gateway["StatusCode"] == "429"
    assert gateway["ResponseParameters"]["Headers"]["Retry-After"] == f"'{RETRY_AFTER_SECONDS}'"
    assert json.loads(gateway["ResponseTemplates"]["application/json"]) == REFUSALS[verdict]


def _rule(name: str) -> dict[str, Any]:
    body = resource(f"TopContextsBy{name}Rule")["Properties"]["RuleBody"]["Fn::Sub"]
    return dict(json.loads(body))


@pytest.mark.parametrize("name", RULES)
def test_contributor_insights_rank_contexts_from_the_access_log(name: str) -> None:
    rule = _rule(name)
    assert resource(f"TopContextsBy{name}Rule")["Type"] == "AWS::CloudWatch::InsightRule"
    assert rule["LogGroupNames"] == ["${ApiAccessLogGroup}"]
    assert rule["Contribution"]["Keys"] == ["$.contextId"]
    access_log = json.loads(resource("RetrievalApi")["Properties"]["AccessLogSetting"]["Format"])
    fields = {key.removeprefix("$.") for key in rule["Contribution"]["Keys"]}
    fields |= {f["Match"].removeprefix("$.") for f in rule["Contribution"]["Filters"]}
    if "ValueOf" in rule["Contribution"]:
        fields.add(rule["Contribution"]["ValueOf"].removeprefix("$."))
    assert fields <= set(access_log)
    assert access_log["contextId"] == "$context.authorizer.context_id"


def test_the_rules_count_throttles_and_server_errors_by_status() -> None:
    assert _rule("Throttles")["Contribution"]["Filters"] == [{"Match": "$.status", "In": ["429"]}]
    assert _rule("Errors")["Contribution"]["Filters"] == [{"Match": "$.status", "StartsWith": ["5"]}]
    assert _rule("Latency")["Contribution"]["ValueOf"] == "$.latencyMs"
