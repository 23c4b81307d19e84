"""What every function module starts with: its Powertools logger, tracer and metrics, the decorators
that wrap its ``lambda_handler`` in them, and the answer to an event it does not take. One place, so
the handlers (``functions/*/app.py``) hold only what is their own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from ..errors import RetrievalError
from .status import status_of
from .tracing import LambdaTracer, lambda_tracer

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Instruments:
    logger: Logger
    tracer: LambdaTracer
    metrics: Metrics

    @classmethod
    def create(cls) -> Instruments:
        """A function module's own, made once at import (Lambda keeps them for the container)."""
        return cls(Logger(), lambda_tracer(), Metrics())

    def count(self, name: str, value: float = 1) -> None:
        self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)

    def wrap(self, handler: Handler, *, correlation_id_path: str | None = None) -> Handler:
        """``handler`` with the Lambda context in its logs, traced, and its metrics flushed on return.
        Keys a request appends (its context, its mode) end with it (``clear_state``): the next request
        of the container, another tenant's perhaps, never logs under them."""
        traced = self.tracer.capture_lambda_handler(self.metrics.log_metrics(handler))
        return cast(
            Handler,
            self.logger.inject_lambda_context(
                traced, correlation_id_path=correlation_id_path, clear_state=True
            ),
        )

    def answered(self, *, route: str, status: int, latency_ms: float, backend_calls: int) -> None:
        """The request's one summary line: with the keys it appended (``context_id``, ``mode``), what a
        Logs Insights query groups by to find the noisy tenant (docs/OPERATIONS.md). Per-tenant figures
        live in logs, never in a metric dimension per tenant (a metric each)."""
        self.logger.info(
            "answered",
            extra={
                "route": route,
                "status": status,
                "outcome": outcome_of(status),
                "latency_ms": round(latency_ms, 1),
                "backend_calls": backend_calls,
            },
        )

    def refused(self, error: RetrievalError, what: str) -> dict[str, Any]:
        """The answer to an event that is not ``what`` the function takes: logged, counted, a 4xx body."""
        self.logger.warning(f"not {what}", extra={"reason": error.message})
        status = status_of(error)
        count_errors(self.metrics, status)
        return {"statusCode": status, "body": error.to_body()}


def outcome_of(status: int) -> str:
    """``ok``, ``throttled`` (429), ``refused`` (any other 4xx: the caller's to fix) or ``failed`` (5xx)."""
    if status < 400:
        return "ok"
    if status == 429:
        return "throttled"
    return "refused" if status < 500 else "failed"


def count_errors(metrics: Metrics, status: int) -> None:
    """Count error answers: a direct invocation has no API Gateway 4XX/5XX metric, and Lambda counts
    only uncaught exceptions. It also means a request refused before its route still has a metric to
    publish; each route publishes its own on success."""
    if status >= 400:
        name = "ServerErrors" if status >= 500 else "ClientErrors"
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
