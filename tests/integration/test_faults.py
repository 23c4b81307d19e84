"""Backend faults against the real stack: OpenSearch stopped (SIGSTOP) and killed, DynamoDB unreachable
(a closed port) and stopped (SIGSTOP). Every route answers within 80% of the function's timeout: 503
with Retry-After when it needs the failed backend, its normal answer when it does not; after recovery
the query that failed succeeds in the same session and the session counts it once.

Only this worktree's stack processes are signalled (their pids from ``.stack/*.pid``, checked against
the recorded command line), and every signal is undone in a ``finally``. These tests run last
(``restarts_stack``): restarting a killed OpenSearch node gives it an empty data directory.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from cli_process import free_port
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event, session_event, why_event
from retrieval_dev.cli.lambda_runtime import LambdaContext, handler_module
from stack_state import SAMPLE_CORPUS, load_file

from dev import processes, stack
from dev.tables import scratch_space

FUNCTION_TIMEOUT_MS = 3_000
ANSWER_WITHIN_SECONDS = 0.8 * FUNCTION_TIMEOUT_MS / 1000
TEMPLATE_TIMEOUT_MS = LambdaContext(function_name="retrieve").timeout_ms
# Timeouts that fit a 3 s function, as template.yaml's fit its 15 s (test_template checks those).
FAULT_TIMEOUTS = {
    "opensearch_timeout_seconds": 1.0,
    "dynamodb_connect_timeout_seconds": 0.2,
    "dynamodb_read_timeout_seconds": 0.5,
    "dynamodb_max_attempts": 2,
}
pytestmark = pytest.mark.restarts_stack

CONTEXT = "acme"
ROUTES = ("lexical", "session retrieve", "session view", "graph_path", "why_explain")
NEEDS = {
    "lexical": {"opensearch"},
    "session retrieve": {"opensearch", "dynamodb"},
    "session view": {"dynamodb"},
    "graph_path": {"opensearch", "dynamodb"},
    "why_explain": {"opensearch", "dynamodb"},
}


@pytest.fixture(scope="module")
def corpus(stack_settings: Settings, opensearch: Any) -> Iterator[Settings]:
    with scratch_space(stack_settings, "f") as settings:
        assert load_file(settings, SAMPLE_CORPUS).ok
        fitted = settings.model_copy(update=FAULT_TIMEOUTS)
        assert fitted.deadline_problems(FUNCTION_TIMEOUT_MS / 1000) == []
        yield fitted


def usual(fitted: Settings) -> Settings:
    """The same space with the default timeouts (and calls then get the template's function timeout):
    recovery is checked for correctness, not speed; a restarted node's first requests can be slow."""
    return fitted.model_copy(update={name: Settings().model_dump()[name] for name in FAULT_TIMEOUTS})


def event(route: str, session_id: str, text: str) -> tuple[str, dict[str, Any]]:
    if route == "lexical":
        return "retrieve", api_event("POST", "/v1/retrieve", CONTEXT, body={"mode": "lexical", "text": text})
    if route == "session retrieve":
        body = {"mode": "lexical", "text": text, "session_id": session_id}
        return "retrieve", api_event("POST", "/v1/retrieve", CONTEXT, body=body)
    if route == "session view":
        return "retrieve", session_event(CONTEXT, session_id)
    if route == "graph_path":
        query = {"from": "acme:person/alice-chen", "to": "acme:team/payments"}
        return "graph_path", api_event("GET", "/v1/graph/path", CONTEXT, query=query)
    return "why_explain", why_event(CONTEXT, "acme:p-0001")


def answer(
    settings: Settings, route: str, session_id: str, text: str, timeout_ms: int = FUNCTION_TIMEOUT_MS
) -> tuple[int, dict[str, str], float]:
    """Status, headers and elapsed seconds of one handler call (by default with a 3 s function)."""
    function, request = event(route, session_id, text)
    handler = handler_module(function).lambda_handler
    with bootstrap.use(bootstrap.Container(settings)):
        started = time.monotonic()
        result = handler(request, LambdaContext(function_name=function, timeout_ms=timeout_ms))
        elapsed = time.monotonic() - started
    headers = {k: v[-1] for k, v in (result.get("multiValueHeaders") or {}).items()}
    return result["statusCode"], headers | (result.get("headers") or {}), elapsed


def session_count(settings: Settings, session_id: str) -> int:
    import json

    function, request = event("session view", session_id, "")
    with bootstrap.use(bootstrap.Container(settings)):
        result = handler_module(function).lambda_handler(request, LambdaContext(function_name=function))
    assert result["statusCode"] == 200, result
    count: int = json.loads(result["body"])["count"]
    return count


FIRST_QUERY = "who leads payments"
FAILED_QUERY = "payments ledger migration"


def check_fault(
    during: Settings,
    after: Settings,
    failed: str,
    inject: Callable[[], Any],
    recover: Callable[[], None],
) -> None:
    """Inject the fault, call every route, recover, then query the same session again: the query that
    failed succeeds (it did not count as asked) and the session counts it once."""
    session_id = f"s-{uuid.uuid4().hex[:8]}"
    assert answer(after, "session retrieve", session_id, FIRST_QUERY, TEMPLATE_TIMEOUT_MS)[0] == 200
    try:
        with inject():
            for route in ROUTES:
                status, headers, elapsed = answer(during, route, session_id, FAILED_QUERY)
                assert elapsed < ANSWER_WITHIN_SECONDS, (route, elapsed)
                if failed in NEEDS[route]:
                    assert status == 503, route
                    assert int(headers["Retry-After"]) >= 1, route
                else:
                    assert status == 200, route
    finally:
        recover()
    assert answer(after, "session retrieve", session_id, FAILED_QUERY, TEMPLATE_TIMEOUT_MS)[0] == 200
    assert session_count(after, session_id) == 2


def stack_pid(service: stack.Service) -> int:
    running = stack.recorded_process(service)
    assert running is not None, f"{service.label} of this worktree's stack is not running"
    return running[0]


@contextmanager
def stopped(service: stack.Service) -> Iterator[None]:
    """The service's process group stopped (SIGSTOP) for the block, continued afterwards."""
    pid = stack_pid(service)
    os.killpg(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(pid, signal.SIGCONT)


def wait_healthy(service: stack.Service, settings: Settings) -> None:
    url = settings.opensearch_endpoint if service is stack.OPENSEARCH else str(settings.dynamodb_endpoint)
    deadline = time.monotonic() + 60
    while not service.is_healthy(url):
        assert time.monotonic() < deadline, f"{service.label} did not recover"
        time.sleep(0.2)


def test_opensearch_stopped(corpus: Settings) -> None:
    check_fault(
        corpus,
        usual(corpus),
        "opensearch",
        lambda: stopped(stack.OPENSEARCH),
        lambda: wait_healthy(stack.OPENSEARCH, corpus),
    )


def test_dynamodb_unreachable(corpus: Settings) -> None:
    unreachable = corpus.model_copy(update={"dynamodb_endpoint": f"http://127.0.0.1:{free_port()}"})
    check_fault(unreachable, usual(corpus), "dynamodb", nullcontext, lambda: None)


def test_dynamodb_stopped(corpus: Settings) -> None:
    check_fault(
        corpus,
        usual(corpus),
        "dynamodb",
        lambda: stopped(stack.DYNAMODB),
        lambda: wait_healthy(stack.DYNAMODB, corpus),
    )


def test_opensearch_killed(corpus: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs last of all: the restarted node starts empty, so the corpus is loaded again after it."""
    pid, port = stack.recorded_process(stack.OPENSEARCH) or (0, 0)
    assert pid, "OpenSearch of this worktree's stack is not running"
    monkeypatch.setenv(stack.OPENSEARCH.port_env, str(port))

    @contextmanager
    def killed() -> Iterator[None]:
        os.killpg(pid, signal.SIGKILL)
        while processes.is_alive(pid):
            time.sleep(0.05)
        yield

    def restart() -> None:
        stack.up()
        assert load_file(usual(corpus), SAMPLE_CORPUS).ok

    check_fault(corpus, usual(corpus), "opensearch", killed, restart)
