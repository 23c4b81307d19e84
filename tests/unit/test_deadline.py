"""The request deadline: per-call timeouts cut to it, attempts refused past it, carried to threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from retrieval_core import backend_calls
from retrieval_core.config import Settings
from retrieval_core.errors import BackendUnavailableError, DeadlineExceededError
from retrieval_dev.cli.lambda_runtime import LambdaContext


def test_without_a_deadline_calls_keep_their_configured_timeout() -> None:
    assert backend_calls.remaining() is None
    assert backend_calls.timeout(5.0) == 5.0
    backend_calls.check()


def test_a_call_timeout_is_cut_to_the_time_left() -> None:
    with backend_calls.within(0.5):
        assert 0.4 < backend_calls.timeout(5.0) <= 0.5
        assert backend_calls.timeout(0.1) == 0.1
    assert backend_calls.remaining() is None


def test_a_passed_deadline_is_a_backend_unavailable_error() -> None:
    with backend_calls.within(0.0), pytest.raises(DeadlineExceededError) as raised:
        backend_calls.timeout(5.0)
    assert isinstance(raised.value, BackendUnavailableError)
    with backend_calls.within(1.0), pytest.raises(DeadlineExceededError):
        backend_calls.require(2.0)


def test_an_invocation_gets_its_share_of_the_remaining_time() -> None:
    context = LambdaContext(function_name="retrieve", timeout_ms=3_000)
    with backend_calls.for_invocation(context, 0.7):
        left = backend_calls.remaining()
        assert left is not None and 2.0 < left <= 2.1
    with backend_calls.for_invocation(object(), 0.7):  # a context that does not tell its remaining time
        assert backend_calls.remaining() is None


def test_the_deadline_reaches_worker_threads_only_when_carried() -> None:
    with backend_calls.within(1.0), ThreadPoolExecutor(1) as pool:
        assert pool.submit(backend_calls.remaining).result() is None
        carried = pool.submit(backend_calls.carry(backend_calls.remaining)).result()
        assert carried is not None and 0 < carried <= 1.0


def test_a_dynamodb_attempt_that_cannot_finish_in_time_is_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The attempt would need connect + read = 3 s; with 1 s left the call fails before any request
    (the endpoint is a closed loopback port: nothing is there to answer either way)."""
    from retrieval_core.adapters.dynamodb_client import dynamodb_client

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    settings = Settings(dynamodb_endpoint="http://127.0.0.1:9", aws_region="us-east-1")
    client = dynamodb_client(settings)
    sent: list[str] = []
    client.meta.events.register("before-send.dynamodb", lambda **_: sent.append("sent"))
    with backend_calls.within(1.0), pytest.raises(DeadlineExceededError):
        client.get_item(TableName="t", Key={"pk": {"S": "x"}})
    assert sent == []


def test_default_timeouts_fit_the_templates_function_and_tight_ones_are_named() -> None:
    assert Settings().deadline_problems(15.0) == []
    problems = Settings().deadline_problems(3.0)
    assert any("opensearch_timeout_seconds" in p for p in problems)
    assert any("dynamodb" in p for p in problems)
