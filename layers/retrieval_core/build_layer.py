"""Locks and builds the RetrievalCoreLayer: retrieval_core plus its third-party runtime dependencies.

``sam build`` runs it through the Makefile beside it (BuildMethod makefile) in a scratch copy of shared/.
Why not SAM's python BuildMethod: the layer must also carry the package source from shared/ (no copy of it
in the repo), and some dependencies must be left out, which a requirements.txt cannot express.

* ``lock``: resolve requirements.txt with pip's resolver for the Lambda platform (wheels only) and write
  requirements.lock, the full pinned closure minus EXCLUDED. Fails if a FORBIDDEN package is pulled in.
* ``install TARGET``: install requirements.lock with --no-deps into TARGET and copy retrieval_core beside it.

Wheels are picked by the Lambda runtime's tags (not the build host's) through pip's --platform, so no
Docker is needed and any pip >= 22 works. Runs on the SAM venv's interpreter: standard library only.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
LOCK = HERE / "requirements.lock"

# Keep in step with Globals.Function.Runtime and the Architecture parameter in template.yaml (a unit
# test checks it). The layer is built for one architecture: LAMBDA_ARCH=arm64 in the environment of
# `sam build` builds it for arm64 (deploy with Architecture=arm64 then).
LAMBDA_PYTHON_VERSION = "3.12"
MACHINES = {"x86_64": "x86_64", "arm64": "aarch64"}
"""Lambda's architecture names -> the machine names of wheel tags and binutils."""
DEFAULT_ARCH = "x86_64"
LAMBDA_ARCH = os.environ.get("LAMBDA_ARCH", DEFAULT_ARCH)
if LAMBDA_ARCH not in MACHINES:
    sys.exit(f"layer build: LAMBDA_ARCH must be one of {', '.join(MACHINES)}, not {LAMBDA_ARCH!r}")
# python3.12 runs on Amazon Linux 2023 (glibc 2.34): every manylinux tag up to 2_34 loads there.
# (tiktoken 0.14.0 ships manylinux_2_28 wheels only, which is why the runtime is not python3.11/AL2.)
LAMBDA_PLATFORMS = ("manylinux_2_34", "manylinux_2_28", "manylinux_2_17", "manylinux2014")

# Left out of the lock although a dependency names them. The runtime provides boto3 and friends (our
# adapters import them lazily; aws-xray-sdk declares botocore); opensearch-py declares its gRPC transport,
# which opensearchpy never imports and which would be ~20 MB of the layer. snapshot-restore-py (SnapStart's
# hook registry) is part of the managed Python runtime: entrypoints.snapstart imports it defensively.
RUNTIME_PROVIDED = frozenset({"boto3", "botocore", "s3transfer", "snapshot-restore-py"})
UNUSED = frozenset({"grpcio", "protobuf", "opensearch-protobufs"})
EXCLUDED = RUNTIME_PROVIDED | UNUSED
# Never needed at run time (the local embedder stack): the build fails if anything pulls them in.
FORBIDDEN = frozenset({"onnxruntime", "numpy", "tokenizers"})

PACKAGE = "retrieval_core"
# Parts of the package only development uses: the local embedder's tokenizer data (the deployed
# functions embed with Bedrock).
DEV_ONLY = (Path("embedding") / "data",)
# Powertools utilities nothing here imports, nor do Powertools' logger, tracer, metrics or event handler
# (checked by grep; tests/integration/test_sam_build.py imports every built handler against the layer).
UNUSED_POWERTOOLS_UTILITIES = (
    "auth_alpha",
    "batch",
    "circuit_breaker",
    "data_masking",
    "feature_flags",
    "idempotency",
    "kafka",
    "streaming",
)


# Data files no runtime path reads: Swagger UI's assets (served only by enable_swagger(), which these
# functions never call) and regex's own test suite.
UNUSED_FILES = (
    Path("aws_lambda_powertools/event_handler/openapi/swagger_ui/swagger-ui-bundle.min.js"),
    Path("aws_lambda_powertools/event_handler/openapi/swagger_ui/swagger-ui.min.css"),
    Path("regex/tests"),
)


def normalize(name: str) -> str:
    """PEP 503 name, so ``typing_extensions`` and ``Typing-Extensions`` compare equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip(*args: str) -> None:
    machine = MACHINES[LAMBDA_ARCH]
    platforms = [arg for tag in LAMBDA_PLATFORMS for arg in ("--platform", f"{tag}_{machine}")]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *args,
            "--only-binary=:all:",
            "--implementation",
            "cp",
            "--python-version",
            LAMBDA_PYTHON_VERSION,
            *platforms,
        ],
        check=True,
    )


def _refuse(names: set[str], refused: frozenset[str], where: str) -> None:
    found = sorted(names & refused)
    if found:
        sys.exit(f"layer build: {', '.join(found)} would ship in the layer ({where}); it must not")


def lock() -> None:
    """Write requirements.lock from pip's resolution of requirements.txt for the Lambda platform."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch, "report.json")
        _pip(
            "--dry-run",
            "--ignore-installed",
            "--target",
            scratch,
            "--report",
            str(report),
            "--requirement",
            str(REQUIREMENTS),
        )
        resolved = {
            normalize(item["metadata"]["name"]): item["metadata"]["version"]
            for item in json.loads(report.read_text())["install"]
        }
    _refuse(set(resolved), FORBIDDEN, "resolved from requirements.txt")
    pins = [f"{name}=={version}" for name, version in sorted(resolved.items()) if name not in EXCLUDED]
    header = [
        "# Generated by `python build_layer.py lock` from requirements.txt; installed with --no-deps.",
        f"# Resolved for python{LAMBDA_PYTHON_VERSION} {LAMBDA_ARCH}.",
        f"# Left out: {', '.join(sorted(EXCLUDED))}.",
    ]
    LOCK.write_text("\n".join([*header, *pins]) + "\n")


def locked_names() -> set[str]:
    lines = (line.strip() for line in LOCK.read_text().splitlines())
    return {normalize(line.partition("==")[0]) for line in lines if line and not line.startswith("#")}


def install(target: Path, source_root: Path) -> None:
    """Install the locked closure into ``target`` and copy the package found under ``source_root``."""
    _refuse(locked_names(), FORBIDDEN | RUNTIME_PROVIDED, "listed in requirements.lock")
    _pip("--no-deps", "--no-compile", "--target", str(target), "--requirement", str(LOCK))
    for utility in UNUSED_POWERTOOLS_UTILITIES:
        shutil.rmtree(target / "aws_lambda_powertools" / "utilities" / utility)
    for unused in UNUSED_FILES:
        path = target / unused
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    # A wheel's software bill of materials (pydantic-core's is 125 KB) is for auditing the wheel, not for
    # running it: no import or importlib.metadata call reads dist-info/sboms.
    for sboms in target.glob("*.dist-info/sboms"):
        shutil.rmtree(sboms)
    # Type stubs (pydantic-core's 46 KB, a `wrapt-stubs` package) are read by type checkers, never by an
    # import: 86 KB of the layer's 20 MiB.
    for stub in target.rglob("*.pyi"):
        stub.unlink()
    for stubs in target.glob("*-stubs"):  # PEP 561 stub-only packages
        shutil.rmtree(stubs)
    strip_native_libraries(target)
    source = source_root / PACKAGE
    dev_only = {source / part for part in DEV_ONLY}

    def ignored(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n == "__pycache__" or Path(directory) / n in dev_only}

    shutil.copytree(source, target / PACKAGE, ignore=ignored)


def strip_native_libraries(target: Path) -> None:
    """Drop debug symbols from the wheels' extension modules (some ship them: several MB of the layer
    that the runtime never reads). A host's own binutils ``strip`` reads only its machine's libraries;
    the target's binutils or ``llvm-strip`` (any machine) do for another. Without any, the layer is only
    larger."""
    machine = MACHINES[LAMBDA_ARCH]
    candidates = [
        f"{machine}-linux-gnu-strip",
        *(["strip"] if platform.machine() == machine else []),
        "llvm-strip",
    ]
    strip = next((found for name in candidates if (found := shutil.which(name))), None)
    if not strip:
        print(
            f"layer build: no `strip` for {machine} (binutils); native libraries keep their symbols",
            file=sys.stderr,
        )
        return
    libraries = sorted(str(path) for path in target.rglob("*.so"))
    if libraries:
        subprocess.run([strip, "--strip-unneeded", *libraries], check=True)


def main(argv: list[str]) -> None:
    if argv[:1] == ["lock"] and len(argv) == 1:
        lock()
    elif argv[:1] == ["install"] and len(argv) == 3:
        install(Path(argv[1]), Path(argv[2]))
    else:
        sys.exit("usage: build_layer.py lock | install TARGET SOURCE_ROOT")


if __name__ == "__main__":
    main(sys.argv[1:])
