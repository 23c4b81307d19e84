"""Issue 27, case 6: with SSM unreachable the sample authorizer denies inside its 5 s Timeout, later
requests deny at once, and a rotated secret is picked up (the value is cached with a max age).

SSM is "unreachable" the worst way: a loopback port that accepts connections and never answers, so every
attempt waits out its read timeout. Times are measured with the monotonic clock, never slept."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from authorizer import app as authorizer
from retrieval_core.adapters import ssm_parameters

TEMPLATE_TIMEOUT_SECONDS = 5.0
METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/v1/retrieve"


@pytest.fixture
def silent_ssm(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An SSM endpoint on loopback that takes connections into its backlog and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        monkeypatch.setenv(authorizer.SECRET_PARAMETER_ENV, "/retrieval/authorizer-secret")
        ssm_parameters.ssm_provider.cache_clear()
        ssm_parameters.ssm_provider()  # as the container's init does, outside the function's Timeout
        monkeypatch.setattr(authorizer, "SECRETS", authorizer.SecretSource(authorizer._read_secret))
        yield
        ssm_parameters.ssm_provider.cache_clear()


def _event() -> dict[str, str]:
    token = authorizer.issue_token({"sub": "a", "context_id": "acme", "exp": int(time.time()) + 60}, b"s")
    return {"type": "REQUEST", "methodArn": METHOD_ARN, "headers": {"Authorization": f"Bearer {token}"}}


def test_unreachable_ssm_denies_within_the_timeout_and_then_at_once(silent_ssm: None) -> None:
    started = time.monotonic()
    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.lambda_handler(_event(), None)
    first = time.monotonic() - started
    # It really waited on SSM (two read timeouts), and still answered inside the budget and the Timeout.
    assert ssm_parameters.SSM_READ_TIMEOUT_SECONDS <= first < ssm_parameters.SSM_BUDGET_SECONDS
    assert ssm_parameters.SSM_BUDGET_SECONDS < TEMPLATE_TIMEOUT_SECONDS

    started = time.monotonic()
    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.lambda_handler(_event(), None)
    assert time.monotonic() - started < 0.5  # the failed read is remembered for a few seconds


def test_the_failure_is_forgotten_and_a_rotated_secret_is_read() -> None:
    clock = [0.0]
    secrets = iter(["first", "boom", "rotated"])

    def read() -> str:
        value = next(secrets)
        if value == "boom":
            raise ConnectionError("SSM unreachable")
        return value

    source = authorizer.SecretSource(read, now=lambda: clock[0])
    first = source.verifier()
    with pytest.raises(authorizer.UnauthorizedError):
        source.verifier()
    clock[0] += authorizer.FAILED_READ_SECONDS / 2
    with pytest.raises(authorizer.UnauthorizedError):
        source.verifier()  # still remembered: SSM is not asked
    clock[0] += authorizer.FAILED_READ_SECONDS
    rotated = source.verifier()
    claims = {"sub": "a", "context_id": "acme", "exp": int(time.time()) + 60}
    assert first.verify(authorizer.issue_token(claims, b"first")).sub == "a"
    assert rotated.verify(authorizer.issue_token(claims, b"rotated")).sub == "a"


def test_the_secret_is_cached_with_a_max_age(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, object]] = []

    class Provider:
        def get(self, name: str, **options: object) -> str:
            asked.append({"name": name, **options})
            return "secret"

    monkeypatch.setenv(authorizer.SECRET_PARAMETER_ENV, "/p")
    monkeypatch.setattr(ssm_parameters, "ssm_provider", lambda region=None: Provider())
    assert authorizer._read_secret() == "secret"
    assert asked == [{"name": "/p", "decrypt": True, "max_age": authorizer.SECRET_MAX_AGE_SECONDS}]
