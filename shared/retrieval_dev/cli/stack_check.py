"""Before a command that needs the backends runs: are they there? A local endpoint (loopback) that
refuses a connection, or no settings at all, is one line naming what is missing and the command that
starts the stack, instead of a traceback (or a server answering 500s) later. Endpoints elsewhere (a
deployment) are not probed: their own errors say more."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

from ..project import project_root
from .environment import SETTINGS_FILE_VARIABLE, stack_env_file

PROBE_SECONDS = 1.0
DEFAULT_PORTS = {"STACK_OPENSEARCH_PORT": 9200, "STACK_DYNAMODB_PORT": 8000}
PORT_VARIABLES = {"OpenSearch": "STACK_OPENSEARCH_PORT", "DynamoDB": "STACK_DYNAMODB_PORT"}


class StackUnavailableError(Exception):
    """The backends a command needs are not reachable; the message says how to start them."""


def require_local_stack() -> None:
    """Raise ``StackUnavailableError`` unless the configured local endpoints accept connections."""
    endpoints = {
        "OpenSearch": os.environ.get("RETRIEVAL_OPENSEARCH_ENDPOINT"),
        "DynamoDB": os.environ.get("RETRIEVAL_DYNAMODB_ENDPOINT"),
    }
    if not any(endpoints.values()) and stack_env_file() is None:
        raise StackUnavailableError(
            f"no local stack settings found (no .stack/env here or in the checkout, {SETTINGS_FILE_VARIABLE} "
            f"unset): start the stack with `{start_command({})}`"
        )
    local = {name: _loopback(endpoint) for name, endpoint in endpoints.items()}
    ports = {PORT_VARIABLES[name]: port for name, (host, port) in local.items() if host is not None}
    for name, (host, port) in local.items():
        if host is not None and not _accepts(host, port):
            raise StackUnavailableError(
                f"the local stack is not running ({name} at {endpoints[name]} refuses connections): "
                f"start it with `{start_command(ports)}`"
            )


def start_command(ports: dict[str, int]) -> str:
    """``make -C <checkout> up``, with the stack's port variables where they are not the defaults."""
    root = project_root()
    variables = " ".join(f"{k}={v}" for k, v in ports.items() if DEFAULT_PORTS.get(k) != v)
    command = f"make -C {root} up" if root is not None else "make up (in the project's checkout)"
    return f"{variables} {command}" if variables else command


def _loopback(endpoint: str | None) -> tuple[str | None, int]:
    if not endpoint:
        return None, 0
    parts = urlsplit(endpoint)
    if parts.hostname not in {"127.0.0.1", "localhost", "::1"}:
        return None, 0
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            return True
    except OSError:
        return False
