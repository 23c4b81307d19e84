"""The evidence workflow (statemachine/evidence.asl.json) executed on moto's ASL interpreter, its Lambda
tasks answered by the real handlers in-process against the sample corpus on the local stack."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from retrieval_core.config import Settings
from retrieval_dev.cli import main
from retrieval_dev.workflow.local_sfn import LocalStepFunctions

from dev.sample import known

QUERY = next(q for q in known.LEXICAL_QUERIES if q.context == "acme")
PATH = known.EQUAL_PATHS


@pytest.fixture(scope="module")
def workflow(corpus_settings: Settings) -> Iterator[LocalStepFunctions]:
    with LocalStepFunctions() as local:
        yield local


def scheduled(history: list[dict[str, Any]]) -> list[str]:
    """The function of every Lambda task the execution scheduled, in order."""
    return [
        json.loads(e["taskScheduledEventDetails"]["parameters"])["FunctionName"].rsplit(":", 1)[-1]
        for e in history
        if e["type"] == "TaskScheduled"
    ]


def test_a_run_retrieves_explains_each_hit_and_combines(workflow: LocalStepFunctions) -> None:
    execution = workflow.run({"context_id": "acme", "request": {"text": QUERY.text, "top_k": 3}})

    assert execution.status == "SUCCEEDED", execution.cause
    output = execution.output
    hits = output["hits"]
    assert hits and all(hit["id"].startswith("acme:") for hit in hits)
    assert QUERY.expected_first in [hit["id"] for hit in hits]
    assert [e["item"]["id"] for e in output["explanations"]] == [hit["id"] for hit in hits]
    assert output["path"] is None
    assert output["query"] == QUERY.text and output["correlation_id"] == execution.arn
    assert output["receipt"]["session_id"] == execution.arn.rsplit(":", 1)[-1]
    assert scheduled(workflow.history(execution.arn)) == ["retrieve"] + ["why_explain"] * len(hits)


def test_a_refused_retrieve_fails_the_run_once_with_its_code_and_answer(workflow: LocalStepFunctions) -> None:
    execution = workflow.run({"context_id": "acme", "request": {"text": QUERY.text, "top_k": "three"}})

    assert execution.status == "FAILED"
    assert execution.error == "Retrieve.invalid_request"
    cause = json.loads(execution.cause or "{}")
    assert cause["statusCode"] == 422
    assert [f["field"] for f in cause["body"]["fields"]] == ["top_k"]
    assert scheduled(workflow.history(execution.arn)) == ["retrieve"]  # no retry, nothing after it


def test_a_run_without_hits_succeeds_with_nothing_to_explain(workflow: LocalStepFunctions) -> None:
    # A context that holds nothing: the k-NN arm, filtered in the query, finds nothing either.
    execution = workflow.run({"context_id": "empty-ctx", "request": {"text": QUERY.text}})

    assert execution.status == "SUCCEEDED", execution.cause
    assert execution.output["hits"] == [] and execution.output["explanations"] == []
    assert scheduled(workflow.history(execution.arn)) == ["retrieve"]


def test_cli_runs_with_a_path_and_prints_output_and_history(
    workflow: LocalStepFunctions, capsys: pytest.CaptureFixture[str]
) -> None:
    workflow_input = {
        "context_id": "acme",
        "request": {"text": QUERY.text, "top_k": 2},
        "path_from": PATH.start,
        "path_to": PATH.end,
    }

    status = main(["workflow", "run", "--input", json.dumps(workflow_input), "--history"])

    printed = json.loads(capsys.readouterr().out)
    assert status == 0 and printed["status"] == "SUCCEEDED"
    path = printed["output"]["path"]
    assert path["found"] is True
    assert tuple(path["paths"][0]["entity_ids"]) in PATH.paths
    functions = scheduled(printed["history"])
    assert sorted(functions) == sorted(["retrieve", "graph_path"] + ["why_explain"] * 2)
    assert printed["history"][-1]["type"] == "ExecutionSucceeded"
