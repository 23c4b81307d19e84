"""The three functions called in-process with API Gateway events, exactly as ``retrieval serve`` does."""

from __future__ import annotations

import json
import time
from typing import Any

from retrieval_dev.cli import events
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from .corpus import CONTEXT


class HandlerFailedError(RuntimeError):
    """A handler answered with an error status: the measurement would be meaningless, so the bench stops
    (a section that expects some statuses, e.g. a deadline, catches this one and counts them)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def retrieve_event(body: dict[str, Any]) -> dict[str, Any]:
    return api_event("POST", "/v1/retrieve", CONTEXT, body=body)


def graph_path_event(source: str, target: str, depth: int) -> dict[str, Any]:
    query = {"from": source, "to": target, "max_depth": str(depth)}
    return api_event("GET", "/v1/graph/path", CONTEXT, query=query)


def why_event(item_id: str, depth: int) -> dict[str, Any]:
    return events.why_event(CONTEXT, item_id, depth)


def timed_call(function: str, event: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Seconds the handler took (the invocation only, not our parsing of its answer) and the parsed body
    of a 200 answer; any other status raises ``HandlerFailedError``."""
    started = time.perf_counter()
    response = invoke(function, event)
    elapsed = time.perf_counter() - started
    body = json.loads(response["body"])
    if response["statusCode"] != 200:
        raise HandlerFailedError(
            f"{function} answered {response['statusCode']}: {body}", response["statusCode"]
        )
    return elapsed, body
