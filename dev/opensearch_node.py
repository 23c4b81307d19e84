"""The dev OpenSearch node: build the Java launcher in ``dev/opensearch`` and say how to run and probe it.

Why a Java launcher rather than a distribution: there is no Docker here and the release tarball is not
on Maven Central, but the server, its modules and the k-NN plugin are (see ``dev/NOTES.md``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from dev.stack_env import REPO_ROOT

PROJECT_DIR = REPO_ROOT / "dev" / "opensearch"
TARGET_DIR = PROJECT_DIR / "target"
BUILD_STAMP = TARGET_DIR / ".built"
MAIN_CLASS = "dev.opensearch.DevNode"
# Present once `mvn package` ran: the launcher, the server jars and the unpacked k-NN plugin.
_OUTPUTS = (
    TARGET_DIR / "classes" / "dev" / "opensearch" / "DevNode.class",
    TARGET_DIR / "lib" / "opensearch-2.19.1.jar",
    TARGET_DIR / "knn" / "opensearch-knn-2.19.1.0.jar",
)
DEFAULT_HEAP = "512m"


class BuildError(RuntimeError):
    """Maven could not fetch the jars or compile the launcher."""


def _needs_build() -> bool:
    """True if any output is missing or the pom / launcher sources changed since the last build."""
    if not BUILD_STAMP.is_file() or not all(path.is_file() for path in _OUTPUTS):
        return True
    inputs = [PROJECT_DIR / "pom.xml", *(p for p in (PROJECT_DIR / "src").rglob("*") if p.is_file())]
    built_at = BUILD_STAMP.stat().st_mtime
    return any(path.stat().st_mtime > built_at for path in inputs)


def ensure_built() -> None:
    """Fetch the jars into ``~/.m2`` and compile the launcher, unless an up-to-date build exists."""
    if not _needs_build():
        return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise BuildError("mvn not found; run `make check-prereqs` for how to install Java 17 and Maven")
    print("fetching OpenSearch jars (first run only)...", flush=True)
    result = subprocess.run(
        [mvn, "-q", "-B", "-f", str(PROJECT_DIR / "pom.xml"), "package"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-30:])
        raise BuildError(f"building the OpenSearch launcher failed:\n{tail}")
    BUILD_STAMP.touch()


def _java() -> str:
    """``$JAVA_HOME/bin/java`` if set (what Maven compiled with), else ``java`` on the PATH."""
    java_home = os.environ.get("JAVA_HOME")
    return str(Path(java_home) / "bin" / "java") if java_home else (shutil.which("java") or "java")


def reset_home(home: Path) -> None:
    """Give a starting node an empty data directory.

    Why: moto keeps DynamoDB in memory, so after a restart the tables are empty; index data kept from
    the last run would be half a dataset. Both stores start empty instead, every time.
    """
    shutil.rmtree(home / "data", ignore_errors=True)
    (home / "tmp").mkdir(parents=True, exist_ok=True)


def command(port: int, home: Path) -> list[str]:
    """The JVM command line for a node listening on ``127.0.0.1:port`` with its data under ``home``."""
    heap = os.environ.get("STACK_OPENSEARCH_HEAP", DEFAULT_HEAP)
    classpath = os.pathsep.join(
        [str(TARGET_DIR / "classes"), str(TARGET_DIR / "lib" / "*"), str(TARGET_DIR / "knn" / "*")]
    )
    return [
        _java(),
        f"-Xms{heap}",
        f"-Xmx{heap}",
        "-XX:+UseG1GC",
        "-XX:+ExitOnOutOfMemoryError",
        "-Djava.awt.headless=true",
        "-Dfile.encoding=UTF-8",
        f"-Djava.io.tmpdir={home / 'tmp'}",
        # As in OpenSearch's jvm.options: keep logging alive while the node's own shutdown hook runs.
        "-Dlog4j.shutdownHookEnabled=false",
        "-Dlog4j2.disable.jmx=true",
        "-cp",
        classpath,
        MAIN_CLASS,
        f"path.home={home}",
        f"http.port={port}",
    ]


def is_healthy(endpoint: str) -> bool:
    """True once the node answers cluster health with green or yellow."""
    try:
        with urllib.request.urlopen(f"{endpoint}/_cluster/health", timeout=2) as response:
            status = json.load(response).get("status")
    except (OSError, ValueError, urllib.error.URLError):
        return False
    return status in ("green", "yellow")
