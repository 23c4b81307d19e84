"""The error metrics every function publishes."""

from __future__ import annotations

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit


def count_errors(metrics: Metrics, status: int) -> None:
    """Count error answers: a direct invocation has no API Gateway 4XX/5XX metric, and Lambda counts
    only uncaught exceptions. It also means a request refused before its route still has a metric to
    publish; each route publishes its own on success."""
    if status >= 400:
        name = "ServerErrors" if status >= 500 else "ClientErrors"
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
