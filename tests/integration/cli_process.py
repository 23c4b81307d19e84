"""The `retrieval` command as a real process on a loopback port, for tests of what a user runs."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from stack_state import REPO

from dev import processes
from dev.processes import free_port

RETRIEVAL = Path(sys.executable).with_name("retrieval")
READY_SECONDS = 30.0


@contextmanager
def serving(args: list[str], log: Path, env: dict[str, str]) -> Iterator[str]:
    """`retrieval ARGS --port P` running until the block ends; yields its base URL."""
    port = free_port()
    try:
        with processes.serving(
            [str(RETRIEVAL), *args, "--port", str(port)],
            port=port,
            log=log,
            env=env,
            cwd=REPO,
            ready_seconds=READY_SECONDS,
        ) as url:
            yield url
    except processes.NotServingError as error:
        pytest.fail(f"retrieval {args[0]}: {error} (log: {log})")


def json_call(url: str, method: str, headers: dict[str, str], body: Any = None) -> tuple[int, Any]:
    """One HTTP request to a served process: its status and JSON body (None for an empty error body)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = Request(url, data=data, method=method, headers=headers)
    try:
        with urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
