"""One DynamoDB client per container, with timeouts and attempts that fit inside a request's deadline.

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
    import boto3
    from botocore.config import Config

    client = boto3.client(
        "dynamodb",
        region_name=settings.aws_region,
        endpoint_url=settings.dynamodb_endpoint,
        config=Config(
            connect_timeout=settings.dynamodb_connect_timeout_seconds,
            read_timeout=settings.dynamodb_read_timeout_seconds,
            retries={"mode": "legacy", "total_max_attempts": settings.dynamodb_max_attempts},
            max_pool_connections=32,
        ),
    )
    attempt_seconds = settings.dynamodb_connect_timeout_seconds + settings.dynamodb_read_timeout_seconds
    bind_attempts_to_deadline(client, attempt_seconds)
    return client
