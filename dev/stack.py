"""``python -m dev.stack up|down|status``: the local OpenSearch node and moto DynamoDB, in the background.

``STACK_OPENSEARCH_NODES=3`` runs a three-node OpenSearch cluster instead of one node (HTTP on
``STACK_OPENSEARCH_PORT`` and the next ports; indices get one replica); docs/CLUSTER.md.

``up`` starts what is not already running, waits (bounded) until both answer, creates the DynamoDB
tables from ``template.yaml`` and the ingest bucket and queue (moto's S3 and SQS), and writes
``.stack/env`` for clients. ``down`` stops both process groups
and waits until nothing is left. State (pid/port files and logs) lives under ``.stack/``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dev import moto_server, opensearch_node, processes
from dev.ingest_resources import create_ingest_resources, ingest_env
from dev.sample.knowledge_bases import register_sample_knowledge_bases
from dev.stack_env import (
    ENV_FILE,
    FAKE_AWS_CREDENTIALS,
    REPO_ROOT,
    STACK_DIR,
    client_env,
    paging_key,
    write_env,
)
from dev.tables import create_tables, default_table_names


class StackError(RuntimeError):
    """The stack could not be brought up or down; the message says what to do about it."""


@dataclass(frozen=True)
class Service:
    """One background service of the stack and how to start, recognise and probe it."""

    name: str
    label: str
    port_env: str
    default_port: int
    startup_timeout: float
    command: Callable[[int], list[str]]
    is_healthy: Callable[[str], bool]
    prepare: Callable[[], None] = lambda: None  # run before each fresh start
    port_offset: int = 0  # from the port its variable names (the nodes of a cluster use the next ones)

    @property
    def state_file(self) -> Path:
        return STACK_DIR / f"{self.name}.pid"

    @property
    def log_file(self) -> Path:
        return STACK_DIR / f"{self.name}.log"

    def requested_port(self) -> int:
        raw = os.environ.get(self.port_env, str(self.default_port))
        if not raw.isdigit() or not 0 < int(raw) < 65536:
            raise StackError(f"{self.port_env}={raw!r} is not a TCP port number")
        return int(raw) + self.port_offset


OPENSEARCH_HOME = STACK_DIR / "opensearch"
OPENSEARCH_DEFAULT_PORT = 9200
MAX_OPENSEARCH_NODES = 5


def opensearch_nodes() -> int:
    raw = os.environ.get("STACK_OPENSEARCH_NODES", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_OPENSEARCH_NODES:
        raise StackError(
            f"STACK_OPENSEARCH_NODES={raw!r}: give 1 to {MAX_OPENSEARCH_NODES} (3 for a cluster)"
        )
    return int(raw)


def opensearch_service(node: int, nodes: int) -> Service:
    """Node ``node`` of ``nodes``: node 0 is ``opensearch`` (the endpoint clients use), the others
    ``opensearch-2``, ``opensearch-3``... each with its own home, log and pid file."""
    name = "opensearch" if node == 0 else f"opensearch-{node + 1}"
    home = STACK_DIR / name

    def command(port: int) -> list[str]:
        cluster = opensearch_node.Cluster(port - node, nodes) if nodes > 1 else None
        return opensearch_node.command(port, home, cluster, node)

    return Service(
        name=name,
        label="OpenSearch" if node == 0 and nodes == 1 else f"OpenSearch node {node + 1}",
        port_env="STACK_OPENSEARCH_PORT",
        default_port=OPENSEARCH_DEFAULT_PORT,
        startup_timeout=float(os.environ.get("STACK_OPENSEARCH_TIMEOUT", "180")),
        command=command,
        is_healthy=lambda url: opensearch_node.is_healthy(url, nodes),
        prepare=lambda: opensearch_node.reset_home(home),
        port_offset=node,
    )


OPENSEARCH = opensearch_service(0, 1)
DYNAMODB = Service(
    name="dynamodb",
    label="moto DynamoDB",
    port_env="STACK_DYNAMODB_PORT",
    default_port=8000,
    startup_timeout=float(os.environ.get("STACK_DYNAMODB_TIMEOUT", "30")),
    command=moto_server.command,
    is_healthy=moto_server.is_healthy,
)


def services(nodes: int) -> tuple[Service, ...]:
    return (DYNAMODB, *(opensearch_service(node, nodes) for node in range(nodes)))


def endpoint(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def recorded_process(service: Service) -> tuple[int, int] | None:
    """``(pid, port)`` of this service if its recorded process is alive and is really it.

    The recorded command line must match, so a pid recycled by an unrelated process is never ours.
    """
    try:
        state = json.loads(service.state_file.read_text())
        pid, port, command = int(state["pid"]), int(state["port"]), str(state["command"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None
    if processes.is_alive(pid) and processes.command_line(pid) == command:
        return pid, port
    return None


def _port_busy_message(service: Service, port: int) -> str:
    return (
        f"port {port} for {service.label} is in use by another process (not one this stack started).\n"
        f"  find it:  ss -ltnp 'sport = :{port}'   (or: lsof -nP -iTCP:{port} -sTCP:LISTEN)\n"
        f"  then stop that process, or run the stack on another port, e.g.:  "
        f"{service.port_env}={port + 1} make up"
    )


def _claim_ports(services: list[Service]) -> dict[str, int]:
    """Each service's requested port, after checking all are free (so nothing starts if one is taken)."""
    ports = {service.name: service.requested_port() for service in services}
    busy = [
        _port_busy_message(service, ports[service.name])
        for service in services
        if processes.port_in_use(ports[service.name])
    ]
    if busy:
        raise StackError("\n".join(busy))
    return ports


def _start(service: Service, port: int) -> int:
    """Spawn the service on ``port`` and record it, so ``down`` can find it later."""
    print(f"starting {service.label} on {endpoint(port)} (log: {service.log_file})", flush=True)
    service.prepare()
    command = service.command(port)
    pid = processes.spawn_detached(command, service.log_file, cwd=REPO_ROOT)
    service.state_file.write_text(json.dumps({"pid": pid, "port": port, "command": " ".join(command)}))
    return pid


def _log_tail(service: Service, lines: int = 25) -> str:
    try:
        return "\n".join(service.log_file.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def _wait_healthy(service: Service, pid: int, port: int, started_at: float) -> None:
    """Poll the service until healthy; fail early if it died, or after its startup timeout."""
    print(
        f"waiting for {service.label} to become healthy (up to {service.startup_timeout:.0f}s)...", flush=True
    )
    deadline = started_at + service.startup_timeout
    while not service.is_healthy(endpoint(port)):
        if not processes.is_alive(pid):
            raise StackError(f"{service.label} exited during startup; last log lines:\n{_log_tail(service)}")
        if time.monotonic() > deadline:
            raise StackError(
                f"{service.label} not healthy after {service.startup_timeout:.0f}s "
                f"(allow more with STACK_{service.name.upper()}_TIMEOUT=<seconds>); "
                f"last log lines:\n{_log_tail(service)}"
            )
        time.sleep(0.25)
    rss = processes.resident_memory_mb(pid)
    print(
        f"{service.label} healthy on {endpoint(port)} after {time.monotonic() - started_at:.1f}s "
        f"(pid {pid}, RSS {rss or 0:.0f} MiB)",
        flush=True,
    )


def _stop(service: Service) -> None:
    """Stop the service's whole process group and forget it."""
    running = recorded_process(service)
    if running is not None:
        pid, _ = running
        print(f"stopping {service.label} (pid {pid})...", flush=True)
        try:
            processes.stop_group(pid)
        except processes.StopError as error:
            raise StackError(f"{service.label} did not stop: {error}") from error
    service.state_file.unlink(missing_ok=True)


def up() -> None:
    """Start what is not running, wait for health, create the tables, write ``.stack/env``."""
    from retrieval_core.config import Settings

    STACK_DIR.mkdir(exist_ok=True)
    opensearch_node.ensure_built()
    nodes = opensearch_nodes()
    stack = services(nodes)
    running = {service.name: recorded_process(service) for service in stack}
    to_start = [service for service in stack if running[service.name] is None]
    ports = _claim_ports(to_start)
    pending = []
    for service in stack:
        state = running[service.name]
        if state is not None:
            print(f"{service.label} already running (pid {state[0]}, {endpoint(state[1])})")
            ports[service.name] = state[1]
            if not service.is_healthy(endpoint(state[1])):
                pending.append((service, *state, time.monotonic()))
    try:
        for service in to_start:
            started_at = time.monotonic()
            pid = _start(service, ports[service.name])
            pending.append((service, pid, ports[service.name], started_at))
        for service, pid, port, started_at in pending:
            _wait_healthy(service, pid, port, started_at)
    except StackError:
        for service in to_start:
            _stop(service)
        raise
    dynamodb_endpoint = endpoint(ports[DYNAMODB.name])
    create_tables(dynamodb_endpoint, default_table_names(Settings()))
    register_sample_knowledge_bases(
        dynamodb_endpoint, Settings().knowledge_base_parameter_path, Settings().aws_region
    )
    ingest = create_ingest_resources(dynamodb_endpoint)
    # A cluster keeps one replica of every shard, so losing one node loses no data.
    replicas = {"RETRIEVAL_OPENSEARCH_REPLICAS": "1"} if nodes > 1 else {}
    if nodes > 1:
        opensearch_node.prepare_cluster(endpoint(ports[OPENSEARCH.name]))
    write_env(
        client_env(endpoint(ports[OPENSEARCH.name]), dynamodb_endpoint)
        | ingest_env(dynamodb_endpoint, ingest)
        | {"RETRIEVAL_PAGING_KEY": paging_key()}
        | {"AWS_ENDPOINT_URL_SSM": dynamodb_endpoint}  # knowledge base ids (docs/BEDROCK.md)
        | replicas
    )
    print(up_message(ENV_FILE))


def up_message(env_file: Path) -> str:
    """What ``up`` prints: where the endpoints are, and which keys are for what. The file's AWS keys
    (moto's) are for S3, DynamoDB, SQS and SSM; ``retrieval serve``'s Bedrock route takes the dev keys
    instead (docs/BEDROCK.md says the same)."""
    moto_key = FAKE_AWS_CREDENTIALS["AWS_ACCESS_KEY_ID"]
    return (
        f"stack is up; endpoints and moto's fake AWS keys in {env_file} (`set -a; . {env_file}`).\n"
        f"  Those keys (AWS_ACCESS_KEY_ID={moto_key}) reach the local S3, DynamoDB, SQS and SSM only.\n"
        "  The Bedrock route of `retrieval serve` takes AWS_ACCESS_KEY_ID=dev-<context>\n"
        "  AWS_SECRET_ACCESS_KEY=dev-secret (dev-acme reads ACMEKB0001), and its API\n"
        "  'Authorization: Bearer dev:<context>' (docs/BEDROCK.md)."
    )


def down() -> None:
    """Stop every service (every node of a cluster, whatever STACK_OPENSEARCH_NODES says now) and
    verify no process of theirs is left."""
    for service in services(MAX_OPENSEARCH_NODES):
        _stop(service)
    ENV_FILE.unlink(missing_ok=True)
    print("stack is down")


def status() -> bool:
    """Print each service's state; True if both run and answer."""
    all_ok = True
    for service in services(opensearch_nodes()):
        running = recorded_process(service)
        if running is None:
            print(f"{service.label}: stopped")
            all_ok = False
            continue
        pid, port = running
        healthy = service.is_healthy(endpoint(port))
        all_ok = all_ok and healthy
        rss = processes.resident_memory_mb(pid) or 0
        state = "healthy" if healthy else "NOT answering"
        print(f"{service.label}: running, {state} on {endpoint(port)} (pid {pid}, RSS {rss:.0f} MiB)")
    return all_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.stack", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("up", "down", "status"))
    action = parser.parse_args(argv).action
    try:
        if action == "up":
            up()
        elif action == "down":
            down()
        else:
            return 0 if status() else 1
    except (StackError, opensearch_node.BuildError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
