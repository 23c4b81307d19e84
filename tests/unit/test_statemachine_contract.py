"""The evidence workflow's payloads are what the functions' direct-invocation path accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from retrieval_core.entrypoints.direct import DirectInvocation
from retrieval_core.graph.models import GraphPathRequest
from retrieval_core.lineage import WhyExplainRequest
from retrieval_core.retrieval.requests import RetrieveRequest, checked_idempotency_key

DEFINITION = Path(__file__).resolve().parents[2] / "statemachine" / "evidence.asl.json"
SAMPLE = {
    "$.context_id": "acme",
    "$$.Execution.Id": "exec-1",
    "$$.Execution.Name": "run-1",
    "$.hit.id": "acme:p-1",
    "$.path_from": "acme:e/a",
    "$.path_to": "acme:e/b",
}


def tasks(states: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name, state in states.items():
        if state.get("Type") == "Task":
            found[name] = state
        for branch in state.get("Branches", []):
            found |= tasks(branch["States"])
        if "ItemProcessor" in state:
            found |= tasks(state["ItemProcessor"]["States"])
    return found


def resolve(template: Any) -> Any:
    """Fill a Parameters template with sample values, as Step Functions would."""
    if isinstance(template, dict):
        resolved = {}
        for key, value in template.items():
            if key.endswith(".$"):
                if value.startswith("States.JsonMerge"):
                    resolved[key[:-2]] = {"mode": "hybrid", "text": "who leads payments"}
                elif value == "States.Format('{}/Retrieve', $$.Execution.Id)":
                    resolved[key[:-2]] = f"{SAMPLE['$$.Execution.Id']}/Retrieve"
                else:
                    resolved[key[:-2]] = SAMPLE[value]
            else:
                resolved[key] = resolve(value)
        return resolved
    return template


def test_each_task_payload_is_a_valid_direct_invocation() -> None:
    definition = json.loads(DEFINITION.read_text())
    payloads = {name: resolve(t["Parameters"]["Payload"]) for name, t in tasks(definition["States"]).items()}
    models = {"RetrieveCall": RetrieveRequest, "WhyExplain": WhyExplainRequest, "GraphPath": GraphPathRequest}
    assert set(payloads) == set(models)
    for name, payload in payloads.items():
        invocation = DirectInvocation.model_validate(payload)
        assert invocation.context_id == "acme" and invocation.correlation_id == "exec-1"
        models[name].model_validate(invocation.request)
    assert (
        checked_idempotency_key(payloads["RetrieveCall"]["idempotency_key"], "idempotency_key")
        == "exec-1/Retrieve"
    )


def test_a_retrieve_answered_503_is_retried_with_the_same_key() -> None:
    """The Retrieve state's Retry sends its branch again; the key names the execution and the state only,
    nothing that changes between attempts."""
    retrieve = json.loads(DEFINITION.read_text())["States"]["Retrieve"]
    (retry,) = retrieve["Retry"]
    assert set(retry["ErrorEquals"]) == {"Retrieve.backend_unavailable", "Retrieve.request_in_progress"}
    branch = retrieve["Branches"][0]["States"]
    payload = branch["RetrieveCall"]["Parameters"]["Payload"]
    assert payload["idempotency_key.$"] == "States.Format('{}/Retrieve', $$.Execution.Id)"
    choices = branch[branch["RetrieveCall"]["Next"]]["Choices"]
    failing = {branch[choice["Next"]]["Error"] for choice in choices}
    assert failing == set(retry["ErrorEquals"])


def test_results_are_read_from_the_direct_invocation_body() -> None:
    definition = json.loads(DEFINITION.read_text())
    retrieve = definition["States"]["Retrieve"]
    call = retrieve["Branches"][0]["States"]["RetrieveCall"]
    assert call["ResultSelector"] == {"statusCode.$": "$.Payload.statusCode", "body.$": "$.Payload.body"}
    assert retrieve["ResultSelector"] == {
        "statusCode.$": "States.ArrayGetItem($[*].statusCode, 0)",
        "body.$": "States.ArrayGetItem($[*].body, 0)",
    }
    answered = definition["States"][retrieve["Next"]]
    assert answered["Choices"] == [
        {"Variable": "$.retrieval.statusCode", "NumericEquals": 200, "Next": "ExplainAndCheckPath"}
    ]
    assert definition["States"][answered["Default"]]["Type"] == "Fail"
    for name, task in tasks(definition["States"]).items():
        if name != "RetrieveCall":
            assert task["OutputPath"] == "$.Payload.body"
