"""The MCP server: lists the tools, turns each call into an API request for the backend, and the answer
into a tool result. An API error is a tool error (``is_error``) carrying the API's code and body, never
a protocol failure, so a model can read it and correct its call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from .backends import ApiAnswer, Backend
from .citations import hit_list
from .tools import TOOLS, TOOLS_BY_NAME, ToolArgumentsError

SERVER_NAME = "retrieval"
INSTRUCTIONS = (
    "Evidence retrieval over one knowledge base (the context your credentials allow; you cannot choose "
    "another). Start with retrieve (mode 'hybrid' for questions in words); use graph_path to connect two "
    "entities and why_explain to check where a hit or a [S#] citation comes from."
)


# The API's words for what an MCP user does with retrieval mcp's own options and arguments.
MCP_WORDS = (
    ("the X-Context-Id header", "retrieval mcp's --context option"),
    ("X-Context-Id", "--context"),
    ("the X-Retrieval-Session header", "the session_id argument"),
)


def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=t.name,
            title=t.title,
            description=t.description,
            input_schema=t.input_schema(),
            output_schema=t.output_schema,
            annotations=types.ToolAnnotations(
                title=t.title,
                read_only_hint=t.hints.read_only,
                destructive_hint=t.hints.destructive,
                idempotent_hint=t.hints.idempotent,
                open_world_hint=t.hints.open_world,
            ),
        )
        for t in TOOLS
    ]


def in_mcp_words(message: str) -> str:
    for api_words, mcp_words in MCP_WORDS:
        message = message.replace(api_words, mcp_words)
    return message


def tool_result(
    answer: ApiAnswer, tool: str | None = None, asked: dict[str, Any] | None = None
) -> types.CallToolResult:
    """200: the body as structured content; as text, retrieve's hits as a citable list (plus the packet
    text when one was built), any other tool's body as compact JSON. Anything else: a tool error whose
    text starts with the API's error code."""
    body = answer.body if isinstance(answer.body, dict) else {"value": answer.body}
    as_json = types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    if answer.status != 200:
        if isinstance(body.get("message"), str):
            body = {**body, "message": in_mcp_words(body["message"])}
            as_json = types.TextContent(
                type="text", text=json.dumps(body, ensure_ascii=False, separators=(",", ":"))
            )
        code = body.get("error") or body.get("message") or "error"
        summary = f"{code} (HTTP {answer.status}): {body.get('message', '')}".rstrip(": ")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=summary), as_json],
            structured_content=body,
            is_error=True,
        )
    content: list[Any] = (
        [types.TextContent(type="text", text=hit_list(body, asked))] if tool == "retrieve" else [as_json]
    )
    packet = body.get("context_packet")
    if isinstance(packet, dict) and packet.get("text"):
        content.append(types.TextContent(type="text", text=packet["text"]))
    return types.CallToolResult(content=content, structured_content=body)


def build_server(backend: Backend) -> Server[Any]:
    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list_tools())

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            known = ", ".join(TOOLS_BY_NAME)
            return tool_result(
                ApiAnswer(404, {"error": "unknown_tool", "message": f"no tool '{params.name}': use {known}"})
            )
        try:
            request = tool.to_request(dict(params.arguments or {}))
        except ToolArgumentsError as error:
            return tool_result(ApiAnswer(422, error.body))
        # Backends block (handlers, HTTP): a worker thread keeps the event loop answering.
        answer = await anyio.to_thread.run_sync(backend.send, request)
        return tool_result(answer, tool.name, request.body)

    return Server(
        SERVER_NAME,
        version="0.1.0",
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], host: str, port: int, guard: Callable[[Any], Any]) -> None:
    """Streamable HTTP at ``http://HOST:PORT/mcp`` behind ``guard`` (``serving.local_guard.LocalGuard``:
    the server's own Host and Origin only, and its bearer secret), on the same hardened uvicorn as
    ``retrieval serve`` (head deadline, idle timeout, connections per client); the app's lifespan runs
    its session manager. The SDK's own DNS-rebinding check is off: it allows every localhost port."""
    from mcp.server.transport_security import TransportSecuritySettings

    from ..serving import server as http_server

    unguarded = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(host=host, transport_security=unguarded)
    http_server.run(guard(app), host, port, http_server.ServeLimits(), lifespan="on")
