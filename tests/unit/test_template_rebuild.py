"""The deployed form of ``retrieval rebuild``: template.yaml's RebuildFunction runs the same use case
from inside the VPC, is not retried, and may embed with the configured model and delete only the index
a failed rebuild created; a bad event is refused before any backend is touched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import decode
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module

ROOT = Path(__file__).resolve().parents[2]


def rebuild_function() -> dict[str, Any]:
    decoded, problems = decode(str(ROOT / "template.yaml"))
    assert not problems, problems
    properties: dict[str, Any] = decoded["Resources"]["RebuildFunction"]["Properties"]
    return properties


def test_the_function_and_the_cli_call_the_same_use_case() -> None:
    properties = rebuild_function()
    assert properties["CodeUri"] == "functions/rebuild/"
    handler = (ROOT / "functions" / "rebuild" / "app.py").read_text()
    cli = (ROOT / "shared" / "retrieval_dev" / "cli" / "rebuild.py").read_text()
    assert "container().rebuilder(" in handler and "Container(settings).rebuilder(" in cli


def test_it_runs_in_the_vpc_for_up_to_fifteen_minutes_and_is_never_retried() -> None:
    properties = rebuild_function()
    assert properties["Timeout"] == 900
    assert properties["EventInvokeConfig"]["MaximumRetryAttempts"] == 0
    condition, in_vpc, outside = properties["VpcConfig"]["Fn::If"]
    assert condition == "InVpc" and set(in_vpc) == {"SubnetIds", "SecurityGroupIds"}
    assert outside == {"Ref": "AWS::NoValue"}


def test_it_may_embed_with_the_configured_model_and_delete_only_on_a_domain() -> None:
    policies = rebuild_function()["Policies"]
    statements = policies[0]["Statement"]
    embed = statements[0]
    assert embed["Action"] == "bedrock:InvokeModel"
    assert "foundation-model/${EmbeddingModelId}" in embed["Resource"]["Fn::Sub"]
    condition, serverless, domain = statements[1]["Fn::If"]
    assert (condition, serverless) == ("UseServerless", {"Ref": "AWS::NoValue"})
    assert domain["Action"] == "es:ESHttpDelete"
    assert policies[1] == {
        "Fn::If": ["UseServerless", {"Ref": "ServerlessSearchPolicy"}, {"Ref": "DomainIndexPolicy"}]
    }


@pytest.mark.parametrize(
    "event",
    [
        {},
        {"context_id": "acme", "all": True},
        {"context_id": "Not A Context"},
        {"all": True, "reembed": True, "rollback": True},
        {"all": True, "drop": True},
    ],
)
def test_a_bad_event_is_refused_with_422_before_any_backend_is_touched(event: dict[str, Any]) -> None:
    result = handler_module("rebuild").lambda_handler(event, LambdaContext(function_name="rebuild"))
    assert result["statusCode"] == 422
    assert result["body"]["error"] == "invalid_request"
