"""`retrieval mcp` driven by a client nobody here wrote: the official TypeScript SDK
(``@modelcontextprotocol/sdk``, pinned below), over stdio and over streamable HTTP. It lists the tools,
calls each one, and a bad argument comes back as a tool error the model can read.

The SDK is installed from the npm registry into ``.cache/node-mcp/`` (git-ignored) on first use; Node.js
18+ and npm must be on PATH (the test fails saying so when they are not)."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from cli_process import RETRIEVAL, serving
from stack_state import REPO

from dev.sample import known
from tests.processes import finished

SDK = "@modelcontextprotocol/sdk"
SDK_VERSION = "1.32.2"
CLIENT_DIR = REPO / ".cache" / "node-mcp"
CLIENT_SOURCE = Path(__file__).with_name("node_mcp") / "client.mjs"
NPM_TIMEOUT_SECONDS = 300
RUN_TIMEOUT_SECONDS = 120
TOOLS = {"retrieve", "graph_path", "why_explain", "session"}
QUERY = next(q for q in known.LEXICAL_QUERIES if q.context == "acme")
HOP = known.FOUR_HOP_PATH
CHUNK = "acme:doc-04#c1"  # a document chunk: its id has a '#', which must survive the path


@pytest.fixture(scope="module")
def node_client() -> Path:
    """The client script next to a pinned install of the SDK; installs it when missing or another version."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(
            "this test drives retrieval mcp with the TypeScript MCP SDK: install Node.js 18+ with npm "
            "(https://nodejs.org, or your package manager's nodejs and npm) and run it again"
        )
    installed = CLIENT_DIR / "node_modules" / SDK / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != SDK_VERSION:
        CLIENT_DIR.mkdir(parents=True, exist_ok=True)
        manifest = {"private": True, "type": "module", "dependencies": {SDK: SDK_VERSION}}
        (CLIENT_DIR / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        done = finished(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=CLIENT_DIR,
            timeout=NPM_TIMEOUT_SECONDS,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"npm could not install {SDK}@{SDK_VERSION} into {CLIENT_DIR}:\n{done.stderr[-2000:]}"
            )
    script = CLIENT_DIR / CLIENT_SOURCE.name
    shutil.copyfile(CLIENT_SOURCE, script)  # beside node_modules, where Node resolves the SDK from
    return script


@pytest.fixture(scope="module")
def corpus_env(corpus_settings: Any) -> dict[str, str]:
    """The servers run as subprocesses: they find the corpus through their environment."""
    return {**os.environ, **corpus_settings.to_env()}


def run_client(
    script: Path, target: list[str], calls: list[dict[str, Any]], env: dict[str, str]
) -> dict[str, Any]:
    done = finished(["node", script, *target], stdin=json.dumps(calls), env=env, timeout=RUN_TIMEOUT_SECONDS)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def every_tool_once(session_id: str) -> list[dict[str, Any]]:
    return [
        {
            "name": "retrieve",
            "arguments": {"mode": "lexical", "text": QUERY.text, "top_k": 5, "session_id": session_id},
        },
        {"name": "graph_path", "arguments": {"from": HOP.start, "to": HOP.end, "max_depth": 4}},
        {"name": "why_explain", "arguments": {"item_id": CHUNK, "depth": 1}},
        {"name": "session", "arguments": {"session_id": session_id}},
        # Bad arguments: a wrong type, and a mode without the field it needs.
        {"name": "retrieve", "arguments": {"mode": "hybrid", "text": "x", "top_k": "ten"}},
        {"name": "retrieve", "arguments": {"mode": "entity"}},
    ]


def check_answers(answer: dict[str, Any]) -> None:
    tools = {tool["name"]: tool for tool in answer["tools"]}
    assert set(tools) == TOOLS
    for tool in tools.values():
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and not {"allOf", "anyOf", "oneOf", "if"} & schema.keys()
        assert tool["annotations"]["openWorldHint"] is False
    assert tools["retrieve"]["annotations"]["readOnlyHint"] is False  # it spends session budget
    assert tools["why_explain"]["annotations"]["readOnlyHint"] is True

    found, path, explained, session, wrong_type, missing_field = answer["results"]
    assert not found.get("isError")
    hits = found["structuredContent"]["hits"]
    assert QUERY.expected_first in [hit["id"] for hit in hits]
    assert all({"metadata", "valid_from", "valid_to", "location"} <= hit.keys() for hit in hits)
    assert path["structuredContent"]["paths"][0]["entity_ids"] == list(HOP.entities)
    assert not explained.get("isError") and explained["structuredContent"]["item"]["id"] == CHUNK
    assert session["structuredContent"]["count"] == 1

    assert wrong_type["isError"] is True
    assert wrong_type["content"][0]["text"].startswith("invalid_request (HTTP 422): top_k")
    assert missing_field["isError"] is True
    assert "entity_id is required for mode 'entity'" in missing_field["content"][0]["text"]


def test_the_typescript_sdk_over_stdio(node_client: Path, corpus_env: dict[str, str]) -> None:
    answer = run_client(
        node_client,
        ["stdio", str(RETRIEVAL), "mcp", "--token", "dev:acme"],
        every_tool_once(f"ts-stdio-{uuid.uuid4().hex[:8]}"),
        corpus_env,
    )
    assert answer["server"]["name"] == "retrieval"
    check_answers(answer)


def test_the_typescript_sdk_over_streamable_http(
    node_client: Path, corpus_env: dict[str, str], tmp_path: Path
) -> None:
    env = corpus_env | {"RETRIEVAL_MCP_HTTP_TOKEN": f"secret-{uuid.uuid4().hex}"}
    with serving(["mcp", "--http", "--token", "dev:acme"], tmp_path / "mcp.log", env) as url:
        calls = every_tool_once(f"ts-http-{uuid.uuid4().hex[:8]}")
        answer = run_client(node_client, ["http", f"{url}/mcp"], calls, env)
    check_answers(answer)
