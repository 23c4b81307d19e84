"""A three-node OpenSearch cluster of the test's own, from the same jars and launcher as ``make up``
(``dev.opensearch_node``), for tests that kill a node. Its nodes, homes and ports are the test's alone:
the cluster name carries the base port, so it can never merge with another stack on the machine."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dev import opensearch_node, processes

# HTTP base ports tried for the test cluster (each needs its nodes' HTTP and transport ports free).
BASE_PORTS = range(9261, 9300, 3)
HEAP = "256m"
FORM_SECONDS = 240  # a loaded 2-core machine starts three JVMs slowly; healthy sooner returns sooner


def free_base_port(nodes: int) -> int:
    for base in BASE_PORTS:
        cluster = opensearch_node.Cluster(base, nodes)
        ports = [p for i in range(nodes) for p in (cluster.http_port(i), cluster.transport_port(i))]
        if not any(processes.port_in_use(port) for port in ports):
            return base
    pytest.fail(f"no free ports for a {nodes}-node test cluster from {BASE_PORTS.start}")


@dataclass
class LocalCluster:
    cluster: opensearch_node.Cluster
    root: Path
    heap: str
    pids: list[int]

    def home(self, node: int) -> Path:
        return self.root / self.cluster.node_name(node)

    def start(self, node: int) -> None:
        """Start (or restart, keeping its data directory) node ``node``."""
        command = opensearch_node.command(
            self.cluster.http_port(node), self.home(node), self.cluster, node, self.heap
        )
        pid = processes.spawn_detached(
            command, self.root / f"{self.cluster.node_name(node)}.log", cwd=self.root
        )
        if node < len(self.pids):
            self.pids[node] = pid
        else:
            self.pids.append(pid)

    def endpoint(self, node: int) -> str:
        return f"http://127.0.0.1:{self.cluster.http_port(node)}"

    def node_of(self, name: str) -> int:
        return next(i for i in range(self.cluster.nodes) if self.cluster.node_name(i) == name)

    def kill(self, node: int) -> None:
        """SIGKILL the node's process group: no shutdown hook, no goodbye to the cluster."""
        os.killpg(self.pids[node], signal.SIGKILL)
        while processes.is_alive(self.pids[node]):
            time.sleep(0.05)

    def request(self, node: int, path: str, timeout: float = 70) -> Any:
        with urllib.request.urlopen(f"{self.endpoint(node)}{path}", timeout=timeout) as response:
            return json.load(response)

    def wait_for(self, node: int, status: str, nodes: int, within: float = 60) -> dict[str, Any]:
        """Cluster health as seen from ``node`` once it is ``status`` with ``nodes`` nodes: OpenSearch
        itself waits (bounded by ``within``); a 408 body says what it still lacks."""
        path = f"/_cluster/health?wait_for_status={status}&wait_for_nodes={nodes}&timeout={int(within)}s"
        health: dict[str, Any] = self.request(node, path, timeout=within + 10)
        assert health["status"] == status and not health["timed_out"], health
        return health


@contextmanager
def running_cluster(root: Path, nodes: int = 3, heap: str = HEAP) -> Iterator[LocalCluster]:
    """Start ``nodes`` nodes under ``root`` and wait (bounded) until they formed one cluster; every
    process group is stopped when the block ends, whatever happened inside it."""
    opensearch_node.ensure_built()
    cluster = opensearch_node.Cluster(free_base_port(nodes), nodes)
    local = LocalCluster(cluster, root, heap, [])
    try:
        for node in range(nodes):
            opensearch_node.reset_home(local.home(node))
            local.start(node)
        deadline = time.monotonic() + FORM_SECONDS
        while not opensearch_node.is_healthy(local.endpoint(0), nodes):
            dead = [cluster.node_name(i) for i, pid in enumerate(local.pids) if not processes.is_alive(pid)]
            assert not dead, f"{dead} exited while the cluster formed; logs in {root}"
            assert time.monotonic() < deadline, (
                f"no {nodes}-node cluster after {FORM_SECONDS}s; logs in {root}"
            )
            time.sleep(0.25)
        opensearch_node.prepare_cluster(local.endpoint(0))
        yield local
    finally:
        for pid in local.pids:
            if processes.is_alive(pid):
                processes.stop_group(pid)
