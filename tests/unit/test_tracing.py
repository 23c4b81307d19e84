"""Tracing off must not import the X-Ray SDK (a third of a cold start); tracing on keeps Powertools."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from retrieval_core.entrypoints.tracing import NoTracer, lambda_tracer

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


def test_importing_a_handler_with_tracing_off_leaves_the_xray_sdk_out() -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(REPO / 'functions' / 'retrieve')!r}); import app; "
        "print('aws_xray_sdk' in sys.modules)"
    )
    env = {**os.environ, "POWERTOOLS_TRACE_DISABLED": "true", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "False"
