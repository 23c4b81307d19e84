"""`retrieval mcp` as a real process, driven by the official SDK's client: over stdio with the local
backend, over stdio with the remote backend against `retrieval serve`, and over streamable HTTP."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest
from cli_process import RETRIEVAL, serving
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from stack_state import REPO

from dev.sample import known

TOOLS = {"retrieve", "graph_path", "why_explain", "session"}
QUERY = next(q for q in known.LEXICAL_QUERIES if q.context == "acme")
GLOBEX = known.FACTS["globex"]
GLOBEX_QUERY = GLOBEX.lexical_queries[0]
HOP = known.FOUR_HOP_PATH


@pytest.fixture(scope="module", autouse=True)
def corpus_environment(corpus_settings: Any) -> Iterator[None]:
    """The servers run as subprocesses: they find the corpus through their environment, as a deployed
    function would."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in corpus_settings.to_env().items():
            patch.setenv(name, value)
        yield


def stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(RETRIEVAL), args=["mcp", *args], env=dict(os.environ), cwd=str(REPO)
    )


def session_with(client_args: Any, scenario: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(client_args) as client:
            await scenario(client)

    anyio.run(main)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


@pytest.fixture(scope="module")
def served(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`retrieval serve` (the API with its dev authorizer) for the remote backend to call."""
    yield from _process(["serve"], tmp_path_factory, "serve")


def _process(args: list[str], tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[str]:
    with serving(args, tmp_path_factory.mktemp(name) / f"{name}.log", dict(os.environ)) as url:
        yield url


def test_local_stdio_lists_the_tools_and_each_answers_with_citations(corpus_settings: Any) -> None:
    session_id = f"mcp-{uuid.uuid4().hex[:8]}"

    async def scenario(client: Client) -> None:
        listed = await client.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        retrieve_schema = next(t for t in listed.tools if t.name == "retrieve").input_schema
        assert "context_id" not in retrieve_schema["properties"]
        # What a host sends with every model call: the whole list as the server answered it.
        wire = json.dumps(
            [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools],
            separators=(",", ":"),
            ensure_ascii=False,
        )
        assert len(wire) <= 8_000 and "$ref" not in wire and "$defs" not in wire
        assert all(tool.output_schema and tool.output_schema["type"] == "object" for tool in listed.tools)

        found = await client.call_tool(
            "retrieve",
            {
                "mode": "hybrid",
                "text": QUERY.text,
                "top_k": 5,
                "session_id": session_id,
                "pack_tokens": 300,
            },
        )
        assert not found.is_error
        body = found.structured_content
        assert QUERY.expected_first in [hit["id"] for hit in body["hits"]]
        # The text a model reads: one citable line per hit, not the JSON body.
        listing = texts(found)[0].splitlines()
        assert len(listing) == 1 + len(body["hits"]) and not listing[0].startswith("{")
        for line, name, hit in zip(listing[1:], body["receipt"]["source_ids"], body["hits"], strict=True):
            assert line.startswith(f"[{name}] {hit['id']} ({hit['kind']}, score ")
        assert body["applied"]["diversify"] is True and "interleaved by kind" in listing[0]
        packet = body["context_packet"]
        assert texts(found)[-1] == packet["text"] and "[S1]" in packet["text"]
        cited = {item["source_id"]: item["id"] for item in packet["items"]}
        assert cited == dict(
            zip(body["receipt"]["source_ids"], [h["id"] for h in body["hits"]], strict=False)
        )

        proposition = next(item["id"] for item in packet["items"] if item["kind"] == "proposition")
        explained = await client.call_tool("why_explain", {"item_id": proposition, "depth": 2})
        assert not explained.is_error and explained.structured_content["item"]["id"] == proposition

        path = await client.call_tool("graph_path", {"from": HOP.start, "to": HOP.end, "max_depth": 4})
        assert path.structured_content["paths"][0]["entity_ids"] == list(HOP.entities)

        session = await client.call_tool("session", {"session_id": session_id})
        assert session.structured_content["count"] == 1
        sources = {s["name"]: s["id"] for s in session.structured_content["sources"]}
        assert {name: sources[name] for name in cited} == cited

    session_with(stdio("--token", "dev:acme"), scenario)


def test_started_outside_the_repository_it_serves_the_checkout_s_handlers(
    corpus_settings: Any, tmp_path: Any
) -> None:
    outside = StdioServerParameters(
        command=str(RETRIEVAL), args=["mcp", "--token", "dev:acme"], env=dict(os.environ), cwd=str(tmp_path)
    )

    async def scenario(client: Client) -> None:
        agent_filter = {"all": [{"field": "kind", "op": "in", "value": ["proposition", "record"]}]}
        found = await client.call_tool("retrieve", {"text": QUERY.text, "top_k": 5, "filter": agent_filter})
        assert not found.is_error, texts(found)
        assert {hit["kind"] for hit in found.structured_content["hits"]} <= {"proposition", "record"}
        assert found.structured_content["applied"]["filter"]["expression"] == {
            "in": {"key": "kind", "value": ["proposition", "record"]}
        }

    session_with(outside, scenario)


def test_local_stdio_reports_api_errors_as_tool_errors_and_never_switches_context(
    corpus_settings: Any,
) -> None:
    session_id = f"mcp-{uuid.uuid4().hex[:8]}"
    query = {"mode": "lexical", "text": QUERY.text, "session_id": session_id}

    async def scenario(client: Client) -> None:
        assert not (await client.call_tool("retrieve", query)).is_error
        repeated = await client.call_tool("retrieve", query)
        assert repeated.is_error and texts(repeated)[0].startswith("duplicate_query (HTTP 409)")
        assert repeated.structured_content["original_sequence"] == 1

        malformed = await client.call_tool("retrieve", {"mode": "hybrid", "text": "x", "top_k": "ten"})
        assert malformed.is_error and texts(malformed)[0].startswith("invalid_request (HTTP 422)")
        assert [f["field"] for f in malformed.structured_content["fields"]] == ["top_k"]

        missing = await client.call_tool("why_explain", {"depth": 2})
        assert missing.is_error and missing.structured_content["fields"][0]["field"] == "item_id"

        # Naming another context is ignored exactly as the API ignores it: answers stay acme's.
        retrieved = await client.call_tool(
            "retrieve", {"mode": "lexical", "text": GLOBEX_QUERY.text, "context_id": "globex"}
        )
        assert not retrieved.is_error
        assert all(hit["id"].startswith("acme:") for hit in retrieved.structured_content["hits"])
        foreign = await client.call_tool(
            "why_explain", {"item_id": GLOBEX.lineage_chain.leaf, "context_id": "globex"}
        )
        missing_item = await client.call_tool("why_explain", {"item_id": "acme:p-does-not-exist"})
        assert foreign.is_error and foreign.structured_content == missing_item.structured_content
        path = await client.call_tool(
            "graph_path",
            {"from": GLOBEX.four_hop_path.start, "to": GLOBEX.four_hop_path.end, "context_id": "globex"},
        )
        assert "globex:" not in " ".join(texts(path)) and not path.structured_content.get("found")

    session_with(stdio("--token", "dev:acme"), scenario)


def test_remote_backend_calls_the_api_with_its_token(served: str) -> None:
    async def scenario(client: Client) -> None:
        found = await client.call_tool("retrieve", {"mode": "lexical", "text": QUERY.text, "top_k": 3})
        assert not found.is_error
        assert found.structured_content["hits"][0]["id"] == QUERY.expected_first
        explained = await client.call_tool("why_explain", {"item_id": known.LINEAGE_CHAIN.leaf})
        assert explained.structured_content["item"]["id"] == known.LINEAGE_CHAIN.leaf

    session_with(stdio("--api-url", served, "--token", "dev:acme"), scenario)

    async def refused(client: Client) -> None:
        answer = await client.call_tool("retrieve", {"mode": "lexical", "text": QUERY.text})
        assert answer.is_error and answer.structured_content["error"] == "unauthenticated"

    session_with(stdio("--api-url", served, "--token", "not-a-dev-token"), refused)


def test_streamable_http_on_loopback(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    secret = f"secret-{uuid.uuid4().hex}"
    log = tmp_path_factory.mktemp("mcp-http") / "mcp-http.log"
    env = dict(os.environ) | {"RETRIEVAL_MCP_HTTP_TOKEN": secret}
    with serving(["mcp", "--http", "--token", "dev:acme"], log, env) as url:

        async def scenario(client: Client) -> None:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            path = await client.call_tool("graph_path", {"from": HOP.start, "to": HOP.end, "max_depth": 4})
            assert path.structured_content["found"] is True

        bearer = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
        session_with(streamable_http_client(f"{url}/mcp", http_client=bearer), scenario)
