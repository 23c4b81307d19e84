"""One DynamoDB client per container, with botocore's standard retry mode."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..config import Settings


@cache
def dynamodb_client(settings: Settings) -> Any:
    """The container-wide low-level DynamoDB client (boto3 comes from the Lambda runtime)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        region_name=settings.aws_region,
        endpoint_url=settings.dynamodb_endpoint,
        config=Config(retries={"mode": "standard", "max_attempts": 5}, max_pool_connections=32),
    )
