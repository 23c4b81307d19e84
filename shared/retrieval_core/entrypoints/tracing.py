"""The functions' tracer: Powertools ``Tracer`` when tracing is on, a no-op stand-in when it is off.

Powertools' ``Tracer()`` imports the X-Ray SDK (and through it most of botocore) even when
``POWERTOOLS_TRACE_DISABLED`` is set, which was a third of a cold start's imports. With tracing off the
stand-in keeps the same decorators and imports nothing. What tracing on costs: docs/PERFORMANCE.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

TRACE_DISABLED = "POWERTOOLS_TRACE_DISABLED"
_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})


class LambdaTracer(Protocol):
    def capture_lambda_handler(self, lambda_handler: F) -> F: ...

    def capture_method(self, method: F) -> F: ...

    def put_annotation(self, key: str, value: str | float | bool) -> None: ...


class NoTracer:
    """Tracing off: every decorator returns the function unchanged."""

    def capture_lambda_handler(self, lambda_handler: F) -> F:
        return lambda_handler

    def capture_method(self, method: F) -> F:
        return method

    def put_annotation(self, key: str, value: str | float | bool) -> None:
        return None


def tracing_disabled() -> bool:
    return os.environ.get(TRACE_DISABLED, "false").strip().lower() in _TRUE


def lambda_tracer() -> LambdaTracer:
    """Powertools ``Tracer`` unless ``POWERTOOLS_TRACE_DISABLED`` is true (then nothing is imported)."""
    if tracing_disabled():
        return NoTracer()
    from aws_lambda_powertools import Tracer

    # Tracer's decorators take more options than the protocol names; the ones used here match it.
    return cast(LambdaTracer, Tracer())
