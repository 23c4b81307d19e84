"""Running a function's handler in-process the way Lambda would: its environment, a context object,
and the handler module loaded from ``functions/<name>/app.py``."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from ..project import project_path

API_FUNCTIONS = ("retrieve", "graph_path", "why_explain")
FUNCTIONS = (*API_FUNCTIONS, "ingest", "rebuild")
FUNCTIONS_DIR = project_path("functions")
"""The handlers: ``functions/`` here, else the checkout's (the CLI works from any directory)."""
METRICS_NAMESPACE = "RetrievalFunctions"


class UnknownFunctionError(Exception):
    pass


@dataclass
class LambdaContext:
    """The attributes of Lambda's context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int = 1024
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    timeout_ms: int = 15_000
    """The function's timeout (template.yaml's, unless a caller wants another)."""
    started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        elapsed_ms = int((time.monotonic() - self.started) * 1000)
        return max(self.timeout_ms - elapsed_ms, 0)


def lambda_environment(function: str) -> dict[str, str]:
    """What the template's Globals give every function, with local values (tracing is off locally)."""
    return {
        "POWERTOOLS_SERVICE_NAME": function,
        "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
        "PYDANTIC_DISABLE_PLUGINS": "__all__",
        "AWS_LAMBDA_FUNCTION_NAME": function,
    }


@cache
def handler_module(function: str, functions_dir: Path = FUNCTIONS_DIR) -> ModuleType:
    if function not in FUNCTIONS:
        raise UnknownFunctionError(f"unknown function '{function}': choose one of {', '.join(FUNCTIONS)}")
    source = functions_dir / function / "app.py"
    if not source.is_file():
        raise UnknownFunctionError(f"{source} not found: run from the repository root")
    for key, value in lambda_environment(function).items():
        os.environ.setdefault(key, value)
    spec = importlib.util.spec_from_file_location(f"functions_{function}_app", source)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as a normal import would, so type hints resolve in its namespace
    spec.loader.exec_module(module)
    return module


class FunctionOutput(io.TextIOBase):
    """What a handler prints, sorted the way CloudWatch sorts it. Metric lines (CloudWatch EMF: one JSON
    object with an ``_aws`` key) are machinery a local user did not ask to read: they go to ``metrics``,
    which drops them unless set (``--show-metrics`` sets stderr). Everything else (the logs) goes to
    stderr, so a caller's stdout carries only what it prints itself.

    One instance lives for the process: Powertools' Logger keeps the stream it found when the handler
    module was created. Lines are assembled per thread, as ``retrieval serve`` runs requests on threads.
    """

    def __init__(self) -> None:
        super().__init__()
        self.metrics: TextIO | None = None
        self._pending = threading.local()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, rest = (getattr(self._pending, "text", "") + text).split("\n")
        self._pending.text = rest
        for line in lines:
            self._route(line + "\n")
        return len(text)

    def flush(self) -> None:
        """Pass on a line the handler left unfinished, so nothing it printed is held back."""
        rest, self._pending.text = getattr(self._pending, "text", ""), ""
        if rest:
            self._route(rest)

    def _route(self, line: str) -> None:
        target = self.metrics if is_metric_line(line) else sys.stderr
        if target is not None:
            target.write(line)
            target.flush()


def is_metric_line(line: str) -> bool:
    """True for a CloudWatch embedded-metric-format record, the lines Powertools' Metrics prints."""
    if '"_aws"' not in line or not line.lstrip().startswith("{"):
        return False  # a log line: most lines, told apart without parsing them
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and "_aws" in record


FUNCTION_OUTPUT = FunctionOutput()


def add_show_metrics_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--show-metrics",
        action="store_true",
        help="Also print the functions' CloudWatch metric lines (EMF JSON) on stderr.",
    )


def show_metrics(enabled: bool) -> None:
    """Send the functions' metric lines to stderr, or (the default) drop them."""
    FUNCTION_OUTPUT.metrics = sys.stderr if enabled else None


def invoke(function: str, event: dict[str, Any]) -> Any:
    """Run the handler; like `sam local invoke`, the function's own logs go to stderr, so a caller's
    stdout carries only what it prints itself, and its metric lines go where ``show_metrics`` said.
    The module loads inside the redirect too: Powertools' Logger binds ``sys.stdout`` when the module
    creates it."""
    with contextlib.redirect_stdout(FUNCTION_OUTPUT):
        try:
            module = handler_module(function)
            return module.lambda_handler(event, LambdaContext(function_name=function))
        finally:
            FUNCTION_OUTPUT.flush()
