"""The evidence workflow's retries carry one idempotency key (the execution id and the state's name), so a
retried retrieve never counts twice: OpenSearch stopped under the first attempt (503, the Parallel
state's Retry sends it again once the node is back), and an answer lost on its way back to the workflow
(the task's Retry on Lambda.ServiceException: the retry gets the kept answer). It pauses the OpenSearch
node (SIGSTOP, then SIGCONT and a health wait) and never restarts it, so it runs in the normal order:
after the ``restarts_stack`` tests the node would be a fresh, empty one without the corpus."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.workflow import lambda_api
from retrieval_dev.workflow.local_sfn import LocalStepFunctions
from test_faults import stopped, wait_healthy
from test_workflow import QUERY, scheduled

from dev import stack

WORKFLOW_INPUT = {"context_id": "acme", "request": {"text": QUERY.text, "top_k": 3}}


@pytest.fixture(scope="module")
def workflow(corpus_settings: Settings) -> Iterator[LocalStepFunctions]:
    with LocalStepFunctions() as local:
        yield local


def answered(name: str) -> int:
    """How many queries the execution's session counted."""
    return bootstrap.container().policy.describe(context_id="acme", session_id=name).count


def task_answers(history: list[dict[str, Any]]) -> list[int]:
    """The status of every answer a Lambda task got back, in order."""
    outputs = [
        json.loads(e["taskSucceededEventDetails"]["output"]) for e in history if e["type"] == "TaskSucceeded"
    ]
    return [output["Payload"]["statusCode"] for output in outputs if "Payload" in output]


def test_a_retrieve_answered_503_is_retried_and_counted_once(
    workflow: LocalStepFunctions, corpus_settings: Settings
) -> None:
    name = f"run-{uuid.uuid4().hex[:12]}"
    arn = workflow.client.start_execution(
        stateMachineArn=workflow.state_machine_arn, name=name, input=json.dumps(WORKFLOW_INPUT)
    )["executionArn"]
    with stopped(stack.OPENSEARCH):
        deadline = time.monotonic() + 60
        while 503 not in task_answers(workflow.history(arn)):
            assert time.monotonic() < deadline, "the first attempt did not answer 503"
            time.sleep(0.1)
    wait_healthy(stack.OPENSEARCH, corpus_settings)
    execution = workflow.wait(arn)

    assert execution.status == "SUCCEEDED", execution.cause
    history = workflow.history(arn)
    answers = task_answers(history)
    retrieves = answers[: answers.index(200) + 1]  # why_explain's answers follow the retrieve's
    # 409 request_in_progress while the first attempt's hold lasts, when it ran out of time before it
    # could release the key (its deadline passed waiting for the stopped node).
    assert retrieves[0] == 503 and set(retrieves[1:-1]) <= {409, 503}
    assert scheduled(history).count("retrieve") == len(retrieves)
    assert execution.output["receipt"]["sequence"] == 1 and execution.output["hits"]
    assert answered(name) == 1


def test_an_answer_lost_on_its_way_back_is_replayed_not_refused(
    workflow: LocalStepFunctions, monkeypatch: pytest.MonkeyPatch
) -> None:
    lost = type("Lambda.ServiceException", (Exception,), {})  # what the workflow sees of a lost answer
    real, answers = lambda_api.invoke, []

    def loses_the_first_answer(function: str, event: dict[str, Any]) -> Any:
        result = real(function, event)
        answers.append(result)
        if function == "retrieve" and len(answers) == 1:
            raise lost("the answer never reached the workflow")
        return result

    monkeypatch.setattr(lambda_api, "invoke", loses_the_first_answer)
    name = f"run-{uuid.uuid4().hex[:12]}"
    execution = workflow.run(WORKFLOW_INPUT, name=name)

    assert execution.status == "SUCCEEDED", execution.cause
    assert scheduled(workflow.history(execution.arn))[:2] == ["retrieve", "retrieve"]
    first, retried = answers[0], answers[1]
    assert first["statusCode"] == retried["statusCode"] == 200
    assert retried["body"] == first["body"]  # the kept answer: same hits, same receipt
    assert execution.output["receipt"] == first["body"]["receipt"]
    assert answered(name) == 1
