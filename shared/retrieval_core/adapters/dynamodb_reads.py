"""What the DynamoDB adapters share besides ``aws.aws_failures``: rows as plain Python values."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from functools import cache
from typing import Any


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
