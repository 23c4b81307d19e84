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
from dataclasses import dataclass
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
# A member of a multi-node cluster runs next to its peers on one machine: a smaller heap each.
DEFAULT_CLUSTER_HEAP = "384m"
# Cluster members need fixed transport ports to seed discovery. They sit this far above the HTTP
# ports, outside 9300-9400 where single nodes pick theirs, so no other stack can take them first.
TRANSPORT_PORT_OFFSET = 1000
ZONES = ("zone-a", "zone-b", "zone-c")
# A lost node's replicas are rebuilt on the remaining nodes after this long (OpenSearch's default is a
# minute, to wait for the node to come back); short here so a dev cluster heals while a test watches.
NODE_LEFT_DELAYED_TIMEOUT = "3s"
# What bounds one tenant's expensive searches on the node, as on a domain (docs/FAIRSHARE.md): search
# backpressure enforced (under CPU or heap duress the node cancels the most resource-hungry search tasks
# instead of only reporting them) and a search cancelled after 10 s whatever its request asked (each
# request also carries its own, shorter limits: retrieval_core/adapters/opensearch/store.py).
SEARCH_PROTECTION = ("search_backpressure.mode=enforced", "search.cancel_after_time_interval=10s")


@dataclass(frozen=True, slots=True)
class Cluster:
    """A local cluster of ``nodes`` nodes: node ``i`` serves HTTP on ``base_port + i`` and transport on
    ``base_port + TRANSPORT_PORT_OFFSET + i``. Every node is cluster-manager eligible and holds data (a
    production domain separates those roles: docs/CLUSTER.md); nodes are spread over three zones with
    shard allocation awareness, so a shard's copies never share a zone."""

    base_port: int
    nodes: int

    @property
    def name(self) -> str:
        """Unique per base port, so no node can ever join another stack's cluster on this machine."""
        return f"retrieval-dev-{self.base_port}"

    def http_port(self, node: int) -> int:
        return self.base_port + node

    def transport_port(self, node: int) -> int:
        return self.base_port + TRANSPORT_PORT_OFFSET + node

    def node_name(self, node: int) -> str:
        return f"node-{node + 1}"

    def node_settings(self, node: int) -> list[str]:
        """``key=value`` settings for node ``node``; none for a single node (single-node discovery)."""
        if self.nodes == 1:
            return []
        seeds = ",".join(f"127.0.0.1:{self.transport_port(i)}" for i in range(self.nodes))
        managers = ",".join(self.node_name(i) for i in range(self.nodes))
        return [
            f"cluster.name={self.name}",
            f"node.name={self.node_name(node)}",
            f"transport.port={self.transport_port(node)}",
            f"discovery.seed_hosts={seeds}",
            f"cluster.initial_cluster_manager_nodes={managers}",
            f"node.attr.zone={ZONES[node % len(ZONES)]}",
            "cluster.routing.allocation.awareness.attributes=zone",
        ]


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


def command(
    port: int, home: Path, cluster: Cluster | None = None, node: int = 0, heap: str | None = None
) -> list[str]:
    """The JVM command line for a node listening on ``127.0.0.1:port`` with its data under ``home``
    (node ``node`` of ``cluster`` when given, else a single-node cluster)."""
    members = cluster.node_settings(node) if cluster else []
    heap = heap or os.environ.get("STACK_OPENSEARCH_HEAP", DEFAULT_CLUSTER_HEAP if members else DEFAULT_HEAP)
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
        *SEARCH_PROTECTION,
        *members,
    ]


def _health(endpoint: str) -> dict[str, object]:
    try:
        with urllib.request.urlopen(f"{endpoint}/_cluster/health", timeout=2) as response:
            return dict(json.load(response))
    except (OSError, ValueError, urllib.error.URLError):
        return {}


def is_healthy(endpoint: str, nodes: int = 1) -> bool:
    """True once the node answers cluster health with green or yellow, in a cluster of ``nodes`` or more
    (a member answers 503 until the cluster has formed)."""
    health = _health(endpoint)
    return health.get("status") in ("green", "yellow") and int(str(health.get("number_of_nodes", 0))) >= nodes


def prepare_cluster(endpoint: str) -> None:
    """Cluster-wide defaults of a multi-node dev cluster, as an index template every index matches."""
    body = {
        "index_patterns": ["*"],
        "priority": 0,
        "template": {"settings": {"index.unassigned.node_left.delayed_timeout": NODE_LEFT_DELAYED_TIMEOUT}},
    }
    request = urllib.request.Request(
        f"{endpoint}/_index_template/dev-cluster-defaults",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="PUT",
    )
    with urllib.request.urlopen(request, timeout=10):
        pass
