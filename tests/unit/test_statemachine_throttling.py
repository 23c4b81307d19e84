"""The evidence workflow invokes the functions directly (IAM, no usage plan); a throttled invocation
(Lambda's TooManyRequestsException) is retried with exponential backoff and jitter by every task."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFINITION = Path(__file__).resolve().parents[2] / "statemachine" / "evidence.asl.json"


def _tasks(states: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, state in states.items():
        if state["Type"] == "Task":
            yield name, state
        for branch in state.get("Branches", []):
            yield from _tasks(branch["States"])
        if "Iterator" in state or "ItemProcessor" in state:
            yield from _tasks((state.get("ItemProcessor") or state["Iterator"])["States"])


def test_every_task_retries_a_throttled_invocation_with_backoff_and_jitter() -> None:
    tasks = dict(_tasks(json.loads(DEFINITION.read_text())["States"]))
    assert len(tasks) >= 3
    for name, task in tasks.items():
        (retry,) = [r for r in task["Retry"] if "Lambda.TooManyRequestsException" in r["ErrorEquals"]]
        assert retry["BackoffRate"] >= 2 and retry["MaxAttempts"] >= 2, name
        assert retry["JitterStrategy"] == "FULL", name
