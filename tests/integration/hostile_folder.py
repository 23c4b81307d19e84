"""A scratch ingest deployment for document tests that run ``retrieval sync`` as code or as a process:
fresh tables, alias, bucket (no queue), the handlers composed on them, and the environment a
``retrieval`` process needs to reach the same ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from dev.ingest_resources import IngestResources, scratch_ingest
from tests.processes import REPO


@dataclass(frozen=True)
class Deployment:
    settings: Settings
    resources: IngestResources

    def env(self) -> dict[str, str]:
        """A ``retrieval`` process's environment for this deployment."""
        return (
            dict(os.environ)
            | self.settings.to_env()
            | {
                "RETRIEVAL_INGEST_BUCKET": self.resources.bucket,
                "AWS_ENDPOINT_URL_S3": self.settings.dynamodb_endpoint or "",
            }
        )


@contextmanager
def deployment(base: Settings, tag: str) -> Iterator[Deployment]:
    endpoint = base.dynamodb_endpoint
    assert endpoint
    with scratch_ingest(base, tag) as resources, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        patch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        settings = base.model_copy(update={"ingest_queue_url": None})
        with bootstrap.use(bootstrap.Container(settings)):
            yield Deployment(settings, resources)


def status(key: str, context_id: str = "acme") -> tuple[int, dict[str, Any]]:
    encoded = quote(key, safe="")
    event = api_event("GET", f"/v1/documents/{encoded}", context_id, path_parameters={"key": encoded})
    response = invoke("retrieve", event)
    return response["statusCode"], json.loads(response["body"])


def texts(text: str, context_id: str = "acme", top_k: int = 50) -> list[str]:
    body = {"mode": "lexical", "text": text, "top_k": top_k}
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context_id, body=body))
    assert response["statusCode"] == 200, response["body"]
    return [hit["text"] for hit in json.loads(response["body"])["hits"]]


MEASURED_LAUNCH = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "with open(sys.argv[1], 'w') as report:\n"
    "    report.write(f'{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}')\n"
)
"""Runs a command and writes its exit code and ``ru_maxrss`` (KiB). Launched from pytest, the command is
measured from this small interpreter because Linux records, at ``exec``, the high-water RSS of the
address space being replaced into the new program's ``ru_maxrss``: a command spawned by pytest itself
(vfork or fork) reports at least pytest's own peak so far, which inside a whole ``make test`` run is
~1.5 GiB (models and fixtures of earlier tests) while the sync itself stays far below. Spawned from
here, it inherits this interpreter's ~10 MiB instead."""


def run_measured(
    args: list[str], env: Mapping[str, str], timeout_seconds: float = 600
) -> tuple[int, str, str, float]:
    """Run ``args`` and reap it with ``wait4`` (through ``MEASURED_LAUNCH``): its exit code, output and
    its own peak RSS in MiB (the process's alone; ``RUSAGE_CHILDREN`` would be the largest of every child
    the test run ever had)."""
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
        tempfile.NamedTemporaryFile("r") as report,
    ):
        launcher = [sys.executable, "-c", MEASURED_LAUNCH, report.name, *args]
        child = subprocess.Popen(
            launcher, cwd=REPO, env=dict(env), stdout=out, stderr=err, text=True, start_new_session=True
        )
        killer = threading.Timer(timeout_seconds, os.killpg, (child.pid, signal.SIGKILL))
        killer.start()
        try:
            child.wait()
        finally:
            killer.cancel()
        out.seek(0)
        err.seek(0)
        code, max_rss_kib = report.read().split() or ("-9", "0")
        return int(code), out.read(), err.read(), int(max_rss_kib) / 1024
