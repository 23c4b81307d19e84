"""Section 6: cold start. Each handler module imported by a whole fresh process (wall time of
``python -c "import app"``, interpreter start included) beside a whole process that runs ``import
boto3``, in the same rounds; the retrieve handler again with tracing on (what X-Ray costs); the
``-X importtime`` breakdown by dependency; and the first invocation in a fresh process (import, then the
first call that builds clients, then a warm call) beside a minimal handler that makes one OpenSearch
search and one DynamoDB GetItem with plain clients, the floor to approach.

Imports run with the functions' Lambda environment (tracing off, as ``retrieval invoke`` runs them) and
``functions/<name>`` first on ``sys.path``, the way Lambda puts the function code before the layer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings
from retrieval_dev.cli.lambda_runtime import API_FUNCTIONS, lambda_environment

from .corpus import CONTEXT
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
name, event, warm_event = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
handler_module(name)
imported = time.perf_counter()
phases = {"import": imported - started}
if sys.argv[4:] == ["snapstart"]:  # what Lambda runs: the hooks before the snapshot, then after a restore
    import snapshot_restore_py
    for registry, phase in ((snapshot_restore_py.get_before_snapshot, "snapshot"),
                            (snapshot_restore_py.get_after_restore, "restore")):
        begun = time.perf_counter()
        for hook, args, kwargs in registry():
            hook(*args, **kwargs)
        phases[phase] = time.perf_counter() - begun
    imported = time.perf_counter()
first = invoke(name, event)
called = time.perf_counter()
invoke(name, warm_event)
warm = time.perf_counter()
assert first["statusCode"] == 200, first
print(json.dumps({**phases, "first": called - imported, "warm": warm - called}))
"""

_PLAIN_HANDLER = """
import json, os, sys, time
started = time.perf_counter()
import boto3
from opensearchpy import OpenSearch
imported = time.perf_counter()
text = sys.argv[1]
search = OpenSearch(hosts=[os.environ["RETRIEVAL_OPENSEARCH_ENDPOINT"]])
dynamodb = boto3.client(
    "dynamodb", endpoint_url=os.environ.get("RETRIEVAL_DYNAMODB_ENDPOINT") or None,
    region_name=os.environ.get("RETRIEVAL_AWS_REGION", "us-east-1"),
)
def handler(text):
    hits = search.search(
        index=os.environ["BENCH_CONTEXT_ALIAS"], body={"query": {"match": {"text": text}}, "size": 10}
    )
    dynamodb.get_item(
        TableName=os.environ["RETRIEVAL_LINEAGE_TABLE"], Key={"pk": {"S": "x#y"}, "sk": {"S": "ITEM"}}
    )
    return hits
handler(text)
called = time.perf_counter()
handler(text)
warm = time.perf_counter()
print(json.dumps({"import": imported - started, "first": called - imported, "warm": warm - called}))
"""
PLAIN = "plain clients"
"""The minimal handler's name in the first-invocation results."""
SNAPSTART = "retrieve (SnapStart hooks)"
"""The retrieve function with its SnapStart hooks run between import and first call: ``snapshot`` (paid
once when a version is published, not by a request), ``restore`` (each restored copy), then ``first``."""
TRACED = "retrieve (tracing on)"


class ColdStartError(RuntimeError):
    """A fresh interpreter failed to import or call a handler."""


def _environment(function: str | None, base: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, **base, "PYTHONPATH": str(REPO)}
    if function:
        env.update(lambda_environment(function))
    return env


def _import_code(target: str) -> tuple[str, str, str | None]:
    """(code, top-level module, function whose Lambda environment applies) for one import target."""
    if target == BASELINE:
        return "import boto3", "boto3", None
    function = "retrieve" if target == TRACED else target
    code = f"import sys; sys.path.insert(0, {str(REPO / 'functions' / function)!r}); import app"
    return code, "app", function


def _target_environment(target: str, function: str | None, base_env: dict[str, str]) -> dict[str, str]:
    env = _environment(function, base_env)
    if target == TRACED:
        env["POWERTOOLS_TRACE_DISABLED"] = "false"
    return env


def process_seconds(target: str, base_env: dict[str, str]) -> float:
    """Wall seconds of a whole fresh process that imports the target and exits (interpreter included)."""
    code, _, function = _import_code(target)
    env = _target_environment(target, function, base_env)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise ColdStartError(f"importing {target} failed:\n{result.stderr[-2000:]}")
    return elapsed


def import_seconds(target: str, base_env: dict[str, str]) -> dict[str, float]:
    """Cumulative ``-X importtime`` seconds of importing a handler module (or ``boto3``) from scratch,
    under ``"total"``, and per top-level package of the modules it imported directly."""
    code, module, function = _import_code(target)
    env = _target_environment(target, function, base_env)
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


def first_call(
    function: str, event: dict[str, Any], base_env: dict[str, str], *, snapstart: bool = False
) -> dict[str, float]:
    """Import, first call and a warm call in one fresh process (with ``snapstart``, the function's
    SnapStart hooks between import and first call). A request with a session gets a new session id per
    process and another for the warm call (the same query twice would be a duplicate)."""
    event, warm_event = _with_session(event), _with_session(event)
    hooks = ["snapstart"] if snapstart else []
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL, function, json.dumps(event), json.dumps(warm_event), *hooks],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=_environment(function, base_env),
    )
    if result.returncode != 0:
        raise ColdStartError(f"first call of {function} failed:\n{result.stderr[-2000:]}")
    return _last_line(result.stdout)


def _context_alias(base_env: dict[str, str]) -> str:
    """The bench context's alias under the deployment's layout (what the handler searches too)."""
    return IndexLayout.of(Settings.from_env(base_env)).alias(CONTEXT)


def plain_first_call(text: str, base_env: dict[str, str]) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", _PLAIN_HANDLER, text],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**_environment(None, base_env), "BENCH_CONTEXT_ALIAS": _context_alias(base_env)},
    )
    if result.returncode != 0:
        raise ColdStartError(f"the plain-client handler failed:\n{result.stderr[-2000:]}")
    return _last_line(result.stdout)


def _with_session(event: dict[str, Any]) -> dict[str, Any]:
    body = event.get("body")
    if not isinstance(body, str) or "session_id" not in json.loads(body):
        return event
    return {**event, "body": json.dumps({**json.loads(body), "session_id": f"cold-{uuid.uuid4().hex}"})}


def measure(
    base_env: dict[str, str],
    events: dict[str, dict[str, Any]],
    plain_text: str,
    import_repeats: int,
    call_repeats: int,
) -> dict[str, Any]:
    targets = (BASELINE, *API_FUNCTIONS, TRACED)
    imports: dict[str, list[dict[str, float]]] = {t: [] for t in targets}
    processes: dict[str, list[float]] = {t: [] for t in targets}
    for repeat in range(import_repeats):
        say(f"cold start: imports, interpreter set {repeat + 1}/{import_repeats}")
        for target in targets:
            processes[target].append(process_seconds(target, base_env))
            imports[target].append(import_seconds(target, base_env))
    calls: dict[str, list[dict[str, float]]] = {f: [] for f in (*API_FUNCTIONS, SNAPSTART, PLAIN)}
    for repeat in range(call_repeats):
        say(f"cold start: first invocations, process set {repeat + 1}/{call_repeats}")
        for function in API_FUNCTIONS:
            calls[function].append(first_call(function, events[function], base_env))
        calls[SNAPSTART].append(first_call("retrieve", events["retrieve"], base_env, snapstart=True))
        calls[PLAIN].append(plain_first_call(plain_text, base_env))
    totals = {t: [run["total"] for run in runs] for t, runs in imports.items()}
    first_invocation = {
        f: {phase: median([c[phase] for c in runs]) * 1000 for phase in runs[0]} for f, runs in calls.items()
    }
    cold = {f: phases["import"] + phases["first"] for f, phases in first_invocation.items()}
    hooked = first_invocation[SNAPSTART]
    return {
        "process_ms": {t: median(v) * 1000 for t, v in processes.items()},
        "process_over_boto3": _ratios(processes, targets[1:]),
        "import_ms": {t: median(v) * 1000 for t, v in totals.items()},
        "import_over_boto3": _ratios(totals, targets[1:]),
        "import_breakdown_ms": {f: _breakdown(imports[f]) for f in (*API_FUNCTIONS, TRACED)},
        "baseline_import_boto3_ms": median(totals[BASELINE]) * 1000,
        "first_invocation_ms": first_invocation,
        "retrieve_first_over_plain": cold["retrieve"] / cold[PLAIN],
        # What the hooks move out of the first call, and a restored copy's restore plus first call
        # against the plain handler's import plus first call (what a non-SnapStart cold start pays).
        "snapstart_moved_ms": first_invocation["retrieve"]["first"] - hooked["first"],
        "retrieve_restored_over_plain": (hooked["restore"] + hooked["first"]) / cold[PLAIN],
        "repeats": {"import": import_repeats, "first_invocation": call_repeats},
    }


def _ratios(samples: dict[str, list[float]], targets: tuple[str, ...]) -> dict[str, float]:
    """Median over rounds of each target's time over the baseline's in the same round."""
    base = samples[BASELINE]
    return {t: median([mine / b for mine, b in zip(samples[t], base, strict=True)]) for t in targets}


def _breakdown(runs: list[dict[str, float]], top: int = 6) -> dict[str, float]:
    """Median milliseconds per directly imported package, the ``top`` largest."""
    names = {name for run in runs for name in run} - {"total"}
    medians = {name: median([run.get(name, 0.0) for run in runs]) * 1000 for name in names}
    return dict(sorted(medians.items(), key=lambda kv: -kv[1])[:top])


def _last_line(stdout: str) -> dict[str, float]:
    """The figures a measuring process printed last, as JSON."""
    figures: dict[str, float] = json.loads(stdout.strip().splitlines()[-1])
    return figures
