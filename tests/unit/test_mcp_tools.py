"""The MCP tools cannot drift from the API: each tool takes its route model's fields (retrieve: the
agent's form, translated into the route's body), the whole list fits an agent's budget, and results and
errors map as documented."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from retrieval_core.graph.models import GraphPathRequest
from retrieval_core.lineage import WhyExplainRequest
from retrieval_core.models.filters import LEAVES
from retrieval_core.retrieval.requests import MODE_NEEDS, Mode, RetrieveRequest
from retrieval_dev.mcp.backends import ApiAnswer, RemoteBackend
from retrieval_dev.mcp.server import list_tools, tool_result
from retrieval_dev.mcp.tools import TOOLS_BY_NAME, SessionRequest, ToolArgumentsError

MODELS = {
    "retrieve": RetrieveRequest,
    "graph_path": GraphPathRequest,
    "why_explain": WhyExplainRequest,
    "session": SessionRequest,
}


def test_each_tool_takes_its_route_model_s_fields_and_nothing_else() -> None:
    listed = {tool.name: tool.input_schema for tool in list_tools()}
    assert set(listed) == set(MODELS)
    for name in ("graph_path", "why_explain", "session"):
        expected = MODELS[name].model_json_schema(by_alias=True)
        assert listed[name]["properties"].keys() == expected["properties"].keys() - {"context_id"}, name
        assert listed[name].get("required", []) == expected.get("required", []), name
    # retrieve's agent form: each argument is a field of the route's body, but the two it translates.
    agent = set(listed["retrieve"]["properties"]) - {"pack_tokens", "options"}
    assert agent <= set(RetrieveRequest.model_json_schema(by_alias=True)["properties"]) - {"context_id"}
    assert set(listed["retrieve"]["properties"]["mode"]["enum"]) == {str(mode) for mode in Mode}
    condition = listed["retrieve"]["properties"]["filter"]["properties"]["all"]["items"]
    assert tuple(condition["properties"]["op"]["enum"]) == LEAVES


def test_the_tools_fit_an_agent_s_budget_and_declare_what_they_return() -> None:
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in list_tools()]
    wire = json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False)
    retrieve = next(tool for tool in tools if tool["name"] == "retrieve")
    assert len(wire) <= 8_000, len(wire)
    assert len(json.dumps(retrieve["inputSchema"], separators=(",", ":"))) <= 4_000
    assert "$ref" not in wire and "$defs" not in wire
    assert all(tool["outputSchema"]["type"] == "object" for tool in tools)


def test_the_mode_conditions_are_in_words_and_in_validation() -> None:
    conditions = RetrieveRequest.model_json_schema()["allOf"]
    assert len(conditions) == len(MODE_NEEDS)  # the OpenAPI document keeps them
    mode = TOOLS_BY_NAME["retrieve"].input_schema()["properties"]["mode"]["description"]
    for needs in MODE_NEEDS.values():
        assert any(name in mode for name in needs)


@pytest.mark.parametrize(
    ("agent_filter", "expression"),
    [
        (
            {"all": [{"field": "metadata.team", "op": "equals", "value": "payments"}]},
            {"equals": {"key": "metadata.team", "value": "payments"}},
        ),
        (
            {
                "all": [{"field": "kind", "op": "in", "value": ["record", "document"]}],
                "any": [
                    {"field": "confidence", "op": "gte", "value": 0.8},
                    {"field": "metadata.owner", "op": "exists", "value": True},
                ],
            },
            {
                "all_of": [
                    {"in": {"key": "kind", "value": ["record", "document"]}},
                    {
                        "any_of": [
                            {"gte": {"key": "confidence", "value": 0.8}},
                            {"exists": {"key": "metadata.owner"}},
                        ]
                    },
                ]
            },
        ),
    ],
)
def test_an_agent_s_filter_is_the_filter_language_s(agent_filter: dict, expression: dict) -> None:
    body = TOOLS_BY_NAME["retrieve"].to_request({"text": "x", "filter": agent_filter}).body
    assert body is not None and body["filter"] == expression
    assert RetrieveRequest.model_validate(body).filter is not None


def test_options_reach_every_other_field_and_the_arguments_win() -> None:
    request = TOOLS_BY_NAME["retrieve"].to_request(
        {
            "text": "x",
            "top_k": 3,
            "pack_tokens": 300,
            "options": '{"diversify": false, "top_k": 9, "pack": {"cite_uri": true}}',
        }
    )
    assert request.body == {
        "mode": "auto",
        "text": "x",
        "top_k": 3,
        "diversify": False,
        "pack": {"cite_uri": True, "max_tokens": 300},
    }
    RetrieveRequest.model_validate(request.body)
    for bad in ("{not json", "[1, 2]"):
        with pytest.raises(ToolArgumentsError) as raised:
            TOOLS_BY_NAME["retrieve"].to_request({"text": "x", "options": bad})
        assert [f["field"] for f in raised.value.body["fields"]] == ["options"]


def test_a_result_s_text_is_a_citable_list_and_the_body_is_structured() -> None:
    body = {
        "hits": [
            {
                "id": "acme:p-1",
                "kind": "proposition",
                "score": 0.91234,
                "text": "Alice leads Payments.",
                "location": {"uri": "s3://acme-docs/org.md"},
            },
            {"id": "acme:rec-2", "kind": "record", "score": 0.5, "text": "y " * 400, "location": None},
        ],
        "receipt": {"source_ids": ["S1", "S2"]},
        "applied": {"diversify": True},
        "next_token": "t",
    }
    result = tool_result(ApiAnswer(200, body), "retrieve")
    text = result.content[0].text
    assert result.structured_content == body
    lines = text.splitlines()
    assert lines[0] == "2 hits, interleaved by kind (applied.diversify); more with next_token."
    assert (
        lines[1] == "[S1] acme:p-1 (proposition, score 0.912) <s3://acme-docs/org.md>: Alice leads Payments."
    )
    assert lines[2].startswith("[S2] acme:rec-2 (record, score 0.5): y y") and len(lines[2]) < 500


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


def test_arguments_become_the_api_request() -> None:
    retrieve = TOOLS_BY_NAME["retrieve"].to_request({"mode": "hybrid", "text": "x", "context_id": "globex"})
    assert (retrieve.method, retrieve.path, retrieve.body) == (
        "POST",
        "/v1/retrieve",
        {"mode": "hybrid", "text": "x", "context_id": "globex"},  # handed over: the API ignores it
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
    ok = tool_result(ApiAnswer(200, {"hits": [], "context_packet": {"text": "[S1] fact"}}), "retrieve")
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
