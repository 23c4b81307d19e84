"""What the DynamoDB adapters share: plain Python rows and one way to report a failing backend.

botocore failures become ``BackendUnavailableError`` (a 503 whose body names nothing internal); the
error code goes to the log only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from functools import cache
from typing import Any

from ..errors import BackendUnavailableError

log = logging.getLogger(__name__)


@contextmanager
def backend_failures(operation: str, service: str = "dynamodb") -> Iterator[None]:
    """Turn any botocore error raised inside the block into ``BackendUnavailableError`` (any AWS
    ``service``: the S3 and SQS adapters of ingestion use it too)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        log.warning("%s %s failed: %s", service, operation, code)
        raise BackendUnavailableError(f"{service} {operation} failed: {code}") from exc
    except BotoCoreError as exc:
        log.warning("%s %s failed: %s", service, operation, type(exc).__name__)
        raise BackendUnavailableError(f"{service} {operation} failed: {type(exc).__name__}") from exc


def plain(row: Mapping[str, Any]) -> dict[str, Any]:
    """A low-level client row (``{"S": ...}`` values) as Python values; numbers stay ``Decimal``."""
    deserializer = _deserializer()
    return {name: deserializer.deserialize(value) for name, value in row.items()}


def as_float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def as_int(value: Decimal | None) -> int | None:
    return None if value is None else int(value)


@cache
def _deserializer() -> Any:
    from boto3.dynamodb.types import TypeDeserializer

    return TypeDeserializer()
