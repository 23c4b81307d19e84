"""DynamoDB clients, one of each per container: the request path's, with timeouts and attempts that fit
inside a request's deadline, and the loader's, for writes no caller waits on.

botocore's timeouts are fixed per client, so the deadline is enforced per attempt instead: an attempt
(the first or a retry) that could not finish before the request's deadline is not started, and the
call fails with ``DeadlineExceededError`` (a 503) at once. Legacy retry mode keeps DynamoDB's short
backoff (50 ms, doubling) where standard mode would sleep up to a second or two between attempts.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..aws import bind_attempts_to_deadline
from ..config import Settings


@cache
def dynamodb_client(settings: Settings) -> Any:
    """The container-wide low-level DynamoDB client (boto3 comes from the Lambda runtime)."""
    retries = {"mode": "legacy", "total_max_attempts": settings.dynamodb_max_attempts}
    client = _client(settings, settings.dynamodb_read_timeout_seconds, retries)
    attempt_seconds = settings.dynamodb_connect_timeout_seconds + settings.dynamodb_read_timeout_seconds
    bind_attempts_to_deadline(client, attempt_seconds)
    return client


LOAD_READ_TIMEOUT_SECONDS = 30.0
LOAD_MAX_ATTEMPTS = 10
"""A load's rows (the loader, the ingest function) have no deadline: an answer slower than the request
path's two seconds (a busy table, a stalled connection) or a run of throttled batches must be waited
out, not end the load ("stopped early" after three attempts 50 ms apart, as a million-row load against
a slow endpoint did). Standard mode backs off up to 20 s between attempts, with jitter."""


@cache
def dynamodb_load_client(settings: Settings) -> Any:
    """The container-wide DynamoDB client for the loader's writes. botocore's check of each request
    against the service model is off: the loader builds its batches itself, from typed rows, and the
    check was a tenth of a load's client time (issue 51); DynamoDB still validates every request."""
    retries = {"mode": "standard", "total_max_attempts": LOAD_MAX_ATTEMPTS}
    return _client(settings, LOAD_READ_TIMEOUT_SECONDS, retries, validated=False)


def _client(
    settings: Settings, read_timeout: float, retries: dict[str, Any], *, validated: bool = True
) -> Any:
    """A low-level DynamoDB client of the deployment's region and endpoint (boto3 comes from the Lambda
    runtime)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        region_name=settings.aws_region,
        endpoint_url=settings.dynamodb_endpoint,
        config=Config(
            connect_timeout=settings.dynamodb_connect_timeout_seconds,
            read_timeout=read_timeout,
            retries=retries,
            max_pool_connections=32,
            parameter_validation=validated,
        ),
    )
