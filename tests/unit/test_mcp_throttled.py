"""A tenant over its usage tier gets API Gateway's 429; through the MCP tools that is a tool error that
says which limit and that a later retry works, while the API's own 429s keep their words."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from retrieval_dev.mcp.backends import THROTTLED_ADVICE, RemoteBackend
from retrieval_dev.mcp.server import tool_result
from retrieval_dev.mcp.tools import ApiRequest

ANSWERS = {
    "/gateway": {"error": "throttled", "message": "Too Many Requests"},
    "/bare": {"message": "Too Many Requests"},
    "/budget": {"error": "session_budget_exhausted", "message": "Session budget spent."},
}


class _Throttling(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        payload = json.dumps(ANSWERS[self.path]).encode()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(429)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def api_url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Throttling)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("path", ["/gateway", "/bare"])
def test_a_gateway_throttle_is_a_tool_error_that_says_to_retry_later(api_url: str, path: str) -> None:
    answer = RemoteBackend(api_url, token="t").send(ApiRequest("POST", path, {}, {}))
    result = tool_result(answer)
    assert result.is_error
    assert result.content[0].text == f"throttled (HTTP 429): Too Many Requests: {THROTTLED_ADVICE}"


def test_the_api_s_own_429_keeps_its_words(api_url: str) -> None:
    answer = RemoteBackend(api_url, token="t").send(ApiRequest("POST", "/budget", {}, {}))
    assert answer.body == ANSWERS["/budget"]
