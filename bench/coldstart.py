"""Section 6: cold start. Each handler module's import time in a fresh interpreter (``python -X
importtime``, cumulative time of the top-level import, median of N) beside a bare ``import boto3``; and
the first invocation in a fresh process (import, then the first call that builds clients, then a warm
call) against the running stack.

Imports run with the functions' Lambda environment (tracing off, as ``retrieval invoke`` runs them) and
``functions/<name>`` first on ``sys.path``, the way Lambda puts the function code before the layer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from retrieval_dev.cli.lambda_runtime import API_FUNCTIONS, lambda_environment

from .progress import say
from .stats import median

REPO = Path(__file__).resolve().parents[1]
BASELINE = "boto3"
BREAKDOWN = (
    "aws_xray_sdk.core",
    "botocore",
    "aws_lambda_powertools",
    "pydantic",
    "opensearchpy",
    "retrieval_core",
)
"""Heavy dependencies whose cumulative import time the report shows beside each handler's total."""

_FIRST_CALL = """
import json, sys, time
started = time.perf_counter()
from retrieval_dev.cli.lambda_runtime import handler_module, invoke
name, event = sys.argv[1], json.loads(sys.argv[2])
handler_module(name)
imported = time.perf_counter()
first = invoke(name, event)
called = time.perf_counter()
invoke(name, event)
warm = time.perf_counter()
assert first["statusCode"] == 200, first
print(json.dumps({"import": imported - started, "first": called - imported, "warm": warm - called}))
"""


class ColdStartError(RuntimeError):
    """A fresh interpreter failed to import or call a handler."""


def _environment(function: str | None, base: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, **base, "PYTHONPATH": str(REPO)}
    if function:
        env.update(lambda_environment(function))
    return env


def import_seconds(target: str, base_env: dict[str, str]) -> dict[str, float]:
    """Cumulative ``-X importtime`` seconds of importing a handler module (or ``boto3``) from scratch,
    under ``"total"``, and per top-level package of the modules it imported directly."""
    if target == BASELINE:
        code, module, env = "import boto3", "boto3", _environment(None, base_env)
    else:
        code = f"import sys; sys.path.insert(0, {str(REPO / 'functions' / target)!r}); import app"
        module, env = "app", _environment(target, base_env)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, cwd=REPO, env=env
    )
    if result.returncode != 0:
        raise ColdStartError(f"importing {target} failed:\n{result.stderr[-2000:]}")
    by_package: dict[str, float] = {}
    for line in result.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name, seconds = parts[2].strip(), int(parts[1]) / 1e6
        depth = (len(parts[2]) - len(parts[2].lstrip()) - 1) // 2
        if depth == 0 and name == module:
            return {"total": seconds, **by_package}
        if depth == 0:
            by_package = {}  # an import before ours (interpreter start-up): not part of the handler
        elif depth == 1:
            package = name.partition(".")[0]
            by_package[package] = by_package.get(package, 0.0) + seconds
    raise ColdStartError(f"no importtime line for {module}")


def first_call(function: str, event: dict[str, Any], base_env: dict[str, str]) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL, function, json.dumps(event)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=_environment(function, base_env),
    )
    if result.returncode != 0:
        raise ColdStartError(f"first call of {function} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def measure(
    base_env: dict[str, str], events: dict[str, dict[str, Any]], import_repeats: int, call_repeats: int
) -> dict[str, Any]:
    targets = (BASELINE, *API_FUNCTIONS)
    imports: dict[str, list[dict[str, float]]] = {t: [] for t in targets}
    for repeat in range(import_repeats):
        say(f"cold start: import times, interpreter set {repeat + 1}/{import_repeats}")
        for target in targets:
            imports[target].append(import_seconds(target, base_env))
    calls: dict[str, list[dict[str, float]]] = {f: [] for f in API_FUNCTIONS}
    for repeat in range(call_repeats):
        say(f"cold start: first invocations, process set {repeat + 1}/{call_repeats}")
        for function in API_FUNCTIONS:
            calls[function].append(first_call(function, events[function], base_env))
    totals = {t: [run["total"] for run in runs] for t, runs in imports.items()}
    ratios = {
        f: median([mine / base for mine, base in zip(totals[f], totals[BASELINE], strict=True)])
        for f in API_FUNCTIONS
    }
    return {
        "import_ms": {t: median(v) * 1000 for t, v in totals.items()},
        "import_breakdown_ms": {f: _breakdown(imports[f]) for f in API_FUNCTIONS},
        "import_over_boto3": ratios,
        "baseline_import_boto3_ms": median(totals[BASELINE]) * 1000,
        "first_invocation_ms": {
            f: {phase: median([c[phase] for c in runs]) * 1000 for phase in ("import", "first", "warm")}
            for f, runs in calls.items()
        },
        "repeats": {"import": import_repeats, "first_invocation": call_repeats},
    }


def _breakdown(runs: list[dict[str, float]], top: int = 6) -> dict[str, float]:
    """Median milliseconds per directly imported package, the ``top`` largest."""
    names = {name for run in runs for name in run} - {"total"}
    medians = {name: median([run.get(name, 0.0) for run in runs]) * 1000 for name in names}
    return dict(sorted(medians.items(), key=lambda kv: -kv[1])[:top])
