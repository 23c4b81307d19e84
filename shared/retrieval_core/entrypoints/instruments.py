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
from .error_counts import count_errors
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
        """``handler`` with the Lambda context in its logs, traced, and its metrics flushed on return."""
        traced = self.tracer.capture_lambda_handler(self.metrics.log_metrics(handler))
        return cast(
            Handler, self.logger.inject_lambda_context(traced, correlation_id_path=correlation_id_path)
        )

    def refused(self, error: RetrievalError, what: str) -> dict[str, Any]:
        """The answer to an event that is not ``what`` the function takes: logged, counted, a 4xx body."""
        self.logger.warning(f"not {what}", extra={"reason": error.message})
        status = status_of(error)
        count_errors(self.metrics, status)
        return {"statusCode": status, "body": error.to_body()}
