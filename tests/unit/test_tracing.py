"""Tracing off must not import the X-Ray SDK (a third of a cold start); tracing on keeps Powertools. A
handler's import leaves out, likewise, what only other paths need."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from retrieval_core.entrypoints.tracing import NoTracer, lambda_tracer

from tests.processes import python

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_tracing_off_is_a_no_op_tracer(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", value)
    tracer = lambda_tracer()
    assert isinstance(tracer, NoTracer)

    def handler(event: dict, context: object) -> dict:
        return event

    assert tracer.capture_lambda_handler(handler) is handler


def test_tracing_on_is_powertools(monkeypatch: pytest.MonkeyPatch) -> None:
    from aws_lambda_powertools import Tracer

    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "false")
    assert isinstance(lambda_tracer(), Tracer)


LOADING_ONLY = "retrieval_core.models.item"  # the loadable item's schema: loading and ingest only
PACKER = "retrieval_core.packing.packer"  # only requests that ask for a packet


@pytest.mark.parametrize(
    ("function", "left_out"),
    [
        ("retrieve", ["aws_xray_sdk", LOADING_ONLY, PACKER, "retrieval_core.graph.models"]),
        ("graph_path", ["aws_xray_sdk", LOADING_ONLY, PACKER]),
        ("why_explain", ["aws_xray_sdk", LOADING_ONLY, PACKER, "retrieval_core.graph.models"]),
    ],
)
def test_importing_a_handler_with_tracing_off_leaves_out_what_it_does_not_run(
    function: str, left_out: list[str]
) -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(REPO / 'functions' / function)!r}); import app; "
        f"print(sorted(m for m in {left_out!r} if m in sys.modules))"
    )
    env = {**os.environ, "POWERTOOLS_TRACE_DISABLED": "true", "PYTHONPATH": str(REPO)}
    result = python(code, env=env)
    assert result.stdout.strip() == "[]"
