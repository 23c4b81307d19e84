"""The `retrieval` command as a real process on a loopback port, for tests of what a user runs."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from stack_state import REPO

RETRIEVAL = Path(sys.executable).with_name("retrieval")
READY_TRIES = 150
READY_WAIT_SECONDS = 0.2


def free_port() -> int:
    """A loopback port nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_accepting(process: subprocess.Popen[bytes], port: int) -> None:
    """Try to connect a bounded number of times; between tries, wait on the process so a crash shows."""
    for _ in range(READY_TRIES):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            pass
        try:
            code = process.wait(timeout=READY_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"retrieval {process.args[1]} exited with {code} before accepting connections")
    pytest.fail(f"retrieval {process.args[1]} did not accept connections on port {port}")


@contextmanager
def serving(args: list[str], log: Path, env: dict[str, str]) -> Iterator[str]:
    """`retrieval ARGS --port P` running until the block ends; yields its base URL."""
    port = free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(RETRIEVAL), *args, "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_accepting(process, port)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def json_call(url: str, method: str, headers: dict[str, str], body: Any = None) -> tuple[int, Any]:
    """One HTTP request to a served process: its status and JSON body (None for an empty error body)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = Request(url, data=data, method=method, headers=headers)
    try:
        with urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
