"""Every file under events/ goes through `retrieval invoke` and yields the status its name declares.

A file is named ``<status>-<name>.json``. Files of one function's folder run once per test session, in
sorted name order, against the session's fresh copy of the sample corpus: that order is what makes the
session sequences deterministic (``200-session-duplicate-1-first`` runs before
``409-session-duplicate-2-repeat``). Selecting a single file still replays its whole folder first.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from cli_process import RETRIEVAL
from stack_state import REPO

from dev.sample.knowledge_bases import SAMPLE_KNOWLEDGE_BASES
from dev.sample.known import CONTEXTS

EVENTS = REPO / "events"
ANSWER_TIMEOUT_SECONDS = 180.0


def concurrent(path: Path) -> bool:
    """An event that needs another request running at the same time (test_idempotency_stack.py sends it)."""
    return "-concurrent-" in path.name


# The ingest function's events load an object first; tests/integration/test_ingest.py runs them.
EVENT_FILES = sorted(p for p in EVENTS.glob("*/*.json") if p.parent.name != "ingest" and not concurrent(p))
FILE_NAME = re.compile(r"^(?P<status>[1-5]\d\d)-[a-z0-9][a-z0-9-]*\.json$")

ERROR_CODES = {
    400: {"next_token_invalid", "next_token_mismatch"},
    401: {"unauthenticated"},
    403: {"forbidden"},
    404: {"not_found"},
    409: {"duplicate_query", "request_in_progress"},
    415: {"unsupported_media_type"},
    422: {"invalid_request", "idempotency_key_reused"},
    429: {"session_budget_exhausted"},
}
# Bedrock's Retrieve answers errors as botocore parses them: the code in x-amzn-ErrorType, {"message"}.
BEDROCK_ERROR_CODES = {400: {"ValidationException"}, 403: {"AccessDeniedException"}}
# A next page needs the token an earlier file's answer carried: ``{{next_token:<file>}}`` stands for it.
EARLIER_TOKEN = re.compile(r"\{\{next_token:(?P<file>[0-9a-z-]+\.json)\}\}")
CONTEXT_ID = re.compile(rf"^(?P<context>{'|'.join(CONTEXTS)}):")


@dataclass(frozen=True)
class Outcome:
    status: int
    body: Any
    stderr: str
    headers: dict[str, str]


class FolderRuns:
    """Runs each function's folder once, in sorted order, the first time any of its files is asked for:
    through one ``retrieval invoke FUNCTION -`` (one warm container, as Lambda reuses one), each event
    sent after the previous one's answer was read, so a later file can carry an earlier answer's token."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self._env = env
        self._logs = logs
        self._outcomes: dict[Path, Outcome] = {}

    def outcome(self, path: Path) -> Outcome:
        if path not in self._outcomes:
            self._run_folder(path.parent)
        return self._outcomes[path]

    def _run_folder(self, folder: Path) -> None:
        stderr_path = self._logs / f"{folder.name}.stderr"
        with (
            stderr_path.open("w") as stderr,
            stderr_path.open() as logged,  # its own offset: the child's writes move only the writer's
            warm_container(folder.name, self._env, stderr) as send,
        ):
            for event_file in sorted(p for p in folder.glob("*.json") if not concurrent(p)):
                response = send(self._with_tokens(event_file))
                self._outcomes[event_file] = outcome_of(response, logged.read())

    def _with_tokens(self, path: Path) -> str:
        """The event's text, with earlier answers' next_tokens filled in."""
        return EARLIER_TOKEN.sub(
            lambda m: self._outcomes[path.parent / m["file"]].body["next_token"], path.read_text()
        )


@contextlib.contextmanager
def warm_container(function: str, env: dict[str, str], stderr: IO[str]) -> Iterator[Callable[[str], Any]]:
    """``send(event_text)``: the response of one event, through a running ``retrieval invoke -``."""
    process = subprocess.Popen(
        [RETRIEVAL, "invoke", function, "-"],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    assert process.stdin and process.stdout

    def send(event_text: str) -> Any:
        process.stdin.write(json.dumps(json.loads(event_text)) + "\n")  # one line per event
        process.stdin.flush()
        # A handler that hangs is killed, as a fresh process per event was by its timeout.
        watchdog = threading.Timer(ANSWER_TIMEOUT_SECONDS, process.kill)
        watchdog.start()
        try:
            line = process.stdout.readline()
        finally:
            watchdog.cancel()
        if not line:
            pytest.fail(f"retrieval invoke {function} - ended or hung without answering: {stderr.name}")
        return json.loads(line)

    try:
        yield send
    finally:
        process.stdin.close()
        assert process.wait(timeout=60) == 0


def outcome_of(response: dict[str, Any], stderr: str) -> Outcome:
    body = response["body"]
    headers = {k.lower(): v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}
    headers |= {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    return Outcome(
        response["statusCode"], json.loads(body) if isinstance(body, str) else body, stderr, headers
    )


def caller_context(event: dict[str, Any]) -> str:
    """The context the event acts in: the envelope's for a direct invocation, else the chosen claim."""
    if "requestContext" not in event:
        return event["context_id"]
    if event["requestContext"].get("authorizer") is None:  # IAM granted the knowledge base in the path
        return SAMPLE_KNOWLEDGE_BASES[event["pathParameters"]["knowledgeBaseId"]]
    headers = {key.lower(): value for key, value in (event.get("headers") or {}).items()}
    return headers.get("x-context-id") or event["requestContext"]["authorizer"]["context_id"]


def context_ids(value: Any) -> Iterator[str]:
    """Every string in a response that is an id of some sample context."""
    if isinstance(value, dict):
        for item in value.values():
            yield from context_ids(item)
    elif isinstance(value, list):
        for item in value:
            yield from context_ids(item)
    elif isinstance(value, str) and CONTEXT_ID.match(value):
        yield value


@pytest.fixture(scope="session")
def folder_runs(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> FolderRuns:
    # A fresh process finds the corpus through its environment, as a deployed function would.
    return FolderRuns(os.environ | corpus_settings.to_env(), tmp_path_factory.mktemp("event-logs"))


def test_every_function_has_events() -> None:
    folders = {"retrieve", "graph_path", "why_explain", "ingest"}
    assert {p.name for p in EVENTS.iterdir() if p.is_dir()} == folders
    every_file = sorted(EVENTS.glob("*/*.json"))
    assert all(FILE_NAME.match(p.name) for p in every_file), [p.name for p in every_file]


@pytest.mark.parametrize("path", EVENT_FILES, ids=[str(p.relative_to(EVENTS)) for p in EVENT_FILES])
def test_event_yields_declared_status(path: Path, folder_runs: FolderRuns) -> None:
    declared = int(FILE_NAME.match(path.name)["status"])
    outcome = folder_runs.outcome(path)
    assert outcome.status == declared, f"{path.name}: {outcome.body}\n{outcome.stderr[-2000:]}"
    # Every outcome publishes a metric (no Powertools warning), and metric lines stay out of what the
    # user reads unless asked for with --show-metrics.
    assert "No application metrics" not in outcome.stderr
    assert '"_aws"' not in outcome.stderr
    if declared != 200 and "knowledge-base" in path.name:
        assert outcome.headers["x-amzn-errortype"] in BEDROCK_ERROR_CODES[declared]
        assert list(outcome.body) == ["message"] and outcome.body["message"]
        return
    if declared != 200:
        assert outcome.body["error"] in ERROR_CODES[declared]
        assert "hits" not in outcome.body
        assert outcome.body["message"]
        return
    context = caller_context(json.loads(path.read_text()))
    seen = set(context_ids(outcome.body))
    assert {CONTEXT_ID.match(i)["context"] for i in seen} <= {context}, sorted(seen)
    if "context-" in path.name:
        assert seen, f"{path.name} must return evidence from {context}"
