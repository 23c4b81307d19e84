"""The MCP tools cannot drift from the API: each input schema is its route's pydantic model's schema
(less ``context_id``, which is never an argument, and the retrieve body's root conditions, which hosts
refuse); results and errors map as documented."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from retrieval_core.graph.models import GraphPathRequest
from retrieval_core.lineage import WhyExplainRequest
from retrieval_core.retrieval.requests import MODE_NEEDS, RetrieveRequest
from retrieval_dev.mcp.backends import ApiAnswer, RemoteBackend
from retrieval_dev.mcp.server import list_tools, tool_result
from retrieval_dev.mcp.tools import TOOLS_BY_NAME, SessionRequest, ToolArgumentsError

MODELS = {
    "retrieve": RetrieveRequest,
    "graph_path": GraphPathRequest,
    "why_explain": WhyExplainRequest,
    "session": SessionRequest,
}


def test_each_tool_schema_is_its_route_model_schema_without_context_id() -> None:
    listed = {tool.name: tool.input_schema for tool in list_tools()}
    assert set(listed) == set(MODELS)
    for name, model in MODELS.items():
        expected = model.model_json_schema(by_alias=True)
        expected["properties"].pop("context_id", None)
        expected.pop("allOf", None)
        assert listed[name] == expected, name
        assert "context_id" not in listed[name]["properties"]
    assert {"from", "to"} <= set(listed["graph_path"]["required"])


def test_the_mode_conditions_the_tool_schema_leaves_out_are_in_words_and_in_validation() -> None:
    conditions = RetrieveRequest.model_json_schema()["allOf"]
    assert len(conditions) == len(MODE_NEEDS)  # the OpenAPI document keeps them
    mode = TOOLS_BY_NAME["retrieve"].input_schema()["properties"]["mode"]["description"]
    for needs in MODE_NEEDS.values():
        assert all(f"`{name}`" in mode for name in needs)


def test_annotations_say_what_each_tool_truly_does() -> None:
    hints = {tool.name: tool.annotations for tool in list_tools()}
    assert all(h is not None and h.open_world_hint is False for h in hints.values())
    assert all(h.destructive_hint is False for h in hints.values() if h is not None)
    reads = {name for name, h in hints.items() if h is not None and h.read_only_hint}
    assert reads == {"graph_path", "why_explain", "session"}
    retrieve = hints["retrieve"]
    assert retrieve is not None and retrieve.idempotent_hint is False  # a repeat in a session is refused


def test_an_error_names_mcps_own_options_not_the_apis_headers() -> None:
    body = {
        "error": "forbidden",
        "message": "Several contexts are allowed: choose one with the X-Context-Id header.",
    }
    failed = tool_result(ApiAnswer(403, body))
    assert "X-Context-Id" not in failed.content[0].text and "--context" in failed.content[0].text
    assert failed.structured_content is not None and "--context" in failed.structured_content["message"]


def test_arguments_become_the_api_request_unchanged() -> None:
    retrieve = TOOLS_BY_NAME["retrieve"].to_request({"mode": "hybrid", "text": "x", "context_id": "globex"})
    assert (retrieve.method, retrieve.path, retrieve.body) == (
        "POST",
        "/v1/retrieve",
        {"mode": "hybrid", "text": "x", "context_id": "globex"},
    )
    path = TOOLS_BY_NAME["graph_path"].to_request(
        {"from": "a:e/1", "to": "a:e/2", "statuses": ["ACTIVE", "SUPERSEDED"]}
    )
    assert path.query == {"from": "a:e/1", "to": "a:e/2", "statuses": "ACTIVE,SUPERSEDED"}
    why = TOOLS_BY_NAME["why_explain"].to_request({"item_id": "acme:doc-1#c2", "depth": 2})
    assert (why.path, why.query) == ("/v1/why/acme:doc-1%23c2", {"depth": "2"})


@pytest.mark.parametrize("tool", ["why_explain", "session"])
def test_a_missing_path_parameter_is_the_apis_422(tool: str) -> None:
    with pytest.raises(ToolArgumentsError) as raised:
        TOOLS_BY_NAME[tool].to_request({})
    assert raised.value.body["error"] == "invalid_request"
    assert [f["field"] for f in raised.value.body["fields"]] == [
        f"{'item' if tool == 'why_explain' else 'session'}_id"
    ]


def test_a_packet_is_also_plain_text_and_an_api_error_is_a_tool_error() -> None:
    ok = tool_result(ApiAnswer(200, {"hits": [], "context_packet": {"text": "[S1] fact"}}))
    assert not ok.is_error and [c.text for c in ok.content][-1] == "[S1] fact"
    assert ok.structured_content == {"hits": [], "context_packet": {"text": "[S1] fact"}}

    body = {"error": "session_budget_exhausted", "message": "Session budget spent.", "limit": 5, "used": 5}
    failed = tool_result(ApiAnswer(429, body))
    assert failed.is_error and failed.structured_content == body
    assert failed.content[0].text == "session_budget_exhausted (HTTP 429): Session budget spent."


def test_sigv4_signs_each_request_for_execute_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    seen: list[dict[str, str]] = []

    class Capture(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(dict(self.headers.items()))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    with HTTPServer(("127.0.0.1", 0), Capture) as api:
        threading.Thread(target=api.handle_request, daemon=True).start()
        backend = RemoteBackend(f"http://127.0.0.1:{api.server_port}/prod", sigv4_region="eu-west-1")
        answer = backend.send(TOOLS_BY_NAME["why_explain"].to_request({"item_id": "acme:p-1"}))

    assert answer == ApiAnswer(200, {})
    authorization = seen[0]["Authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/execute-api/aws4_request" in authorization and "X-Amz-Date" in seen[0]


def test_remote_needs_exactly_one_way_to_authenticate() -> None:
    from retrieval_dev.mcp.backends import BackendConfigError

    with pytest.raises(BackendConfigError):
        RemoteBackend("https://api.example/prod")


def test_the_mcp_sdk_stays_out_of_the_layer_and_the_runtime_package() -> None:
    root = Path(__file__).resolve().parents[2]
    locked = (root / "layers" / "retrieval_core" / "requirements.lock").read_text().lower()
    assert not re.search(r"^(mcp|mcp-types|starlette|uvicorn)==", locked, re.MULTILINE)
    runtime_sources = (root / "shared" / "retrieval_core").rglob("*.py")
    assert not [
        p for p in runtime_sources if re.search(r"^\s*(from|import) mcp\b", p.read_text(), re.MULTILINE)
    ]
