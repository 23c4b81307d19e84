"""The local servers trust no page (issue 52), as real processes on the sample corpus: `retrieval serve`
answers a DNS-rebound Host (a page at evil.example resolved to 127.0.0.1) 421 instead of globex's hits,
a foreign Origin 403, and grants CORS to no origin by default; `retrieval mcp --http` refuses a caller
without its bearer secret (401), a page on another localhost port (403) and a foreign Host (421)."""

from __future__ import annotations

import http.client
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cli_process import serving

from dev.sample import known

LEXICAL = next(q for q in known.LEXICAL_QUERIES if q.context == "globex")
RETRIEVE = json.dumps({"mode": "lexical", "text": LEXICAL.text}).encode()


def _call(
    url: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], Any]:
    """One request with exactly these headers (Host included: urllib would set its own)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        raw = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(raw or b"null")
    finally:
        connection.close()


@pytest.fixture(scope="module")
def served(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("serve-trust") / "serve.log"
    with serving(["serve", "--containers", "0"], log, os.environ | corpus_settings.to_env()) as url:
        yield url


def _retrieve(url: str, **headers: str) -> tuple[int, dict[str, str], Any]:
    own = {
        "Host": urlsplit(url).netloc,
        "Authorization": "Bearer dev:globex",
        "Content-Type": "application/json",
    }
    return _call(url, "POST", "/v1/retrieve", own | headers, RETRIEVE)


def test_serve_answers_its_own_address(served: str) -> None:
    status, headers, body = _retrieve(served)
    assert status == 200 and body["hits"][0]["id"] == LEXICAL.expected_first
    assert "access-control-allow-origin" not in headers  # no CORS by default


def test_a_dns_rebound_page_gets_no_hits(served: str) -> None:
    port = urlsplit(served).port
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{(port or 0) + 1}"):
        status, _, body = _retrieve(served, Host=host)
        assert (status, body["error"]) == (421, "misdirected_request"), host
    status, _, _ = _call(served, "GET", "/", {"Host": f"evil.example:{port}"})  # the workbench too
    assert status == 421


def test_a_foreign_origin_is_refused_and_the_own_origin_served(served: str) -> None:
    port = urlsplit(served).port
    for origin in ("http://evil.example", f"http://localhost:{(port or 0) + 1}", "null"):
        assert _retrieve(served, Origin=origin)[0] == 403, origin
    status, headers, _ = _retrieve(served, Origin=f"http://localhost:{port}", Host=f"localhost:{port}")
    assert status == 200 and "access-control-allow-origin" not in headers  # same-origin needs no CORS
    preflight = {
        "Host": urlsplit(served).netloc,
        "Origin": "http://evil.example",
        "Access-Control-Request-Method": "POST",
    }
    assert _call(served, "OPTIONS", "/v1/retrieve", preflight)[0] == 403


def test_serve_grants_cors_to_a_configured_origin_only(corpus_settings: Any, tmp_path: Path) -> None:
    app = "https://app.example.com"
    env = os.environ | corpus_settings.to_env()
    with serving(["serve", "--containers", "0", "--cors-origin", app], tmp_path / "serve.log", env) as url:
        status, headers, _ = _retrieve(url, Origin=app)
        assert status == 200 and headers["access-control-allow-origin"] == app
        assert _retrieve(url, Origin="https://other.example.com")[0] == 403


@pytest.fixture(scope="module")
def mcp_http(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`retrieval mcp --http` with a generated secret, read from its start-up line (printed once)."""
    log = tmp_path_factory.mktemp("mcp-trust") / "mcp.log"
    env = {k: v for k, v in os.environ.items() if k != "RETRIEVAL_MCP_HTTP_TOKEN"}
    with serving(["mcp", "--http", "--token", "dev:globex"], log, env) as url:
        printed = re.findall(r"Authorization: Bearer ([A-Za-z0-9_-]+)", log.read_text())
        assert len(printed) == 1, log.read_text()
        yield url, printed[0]


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
).encode()


def _mcp(url: str, **headers: str) -> int:
    own = {
        "Host": urlsplit(url).netloc,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for name, value in (own | headers).items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(INITIALIZE)))
        connection.endheaders(INITIALIZE)
        return connection.getresponse().status
    finally:
        connection.close()


def test_mcp_http_requires_its_secret(mcp_http: tuple[str, str]) -> None:
    url, secret = mcp_http
    assert _mcp(url) == 401
    assert _mcp(url, Authorization="Bearer dev:globex") == 401
    assert _mcp(url, Authorization=f"Bearer {secret}x") == 401
    assert _mcp(url, Authorization=f"Bearer {secret}") == 200


def test_mcp_http_refuses_other_localhost_ports_and_foreign_hosts(mcp_http: tuple[str, str]) -> None:
    url, secret = mcp_http
    port = urlsplit(url).port
    bearer = f"Bearer {secret}"
    assert _mcp(url, Authorization=bearer, Origin="http://localhost:9999") == 403
    assert _mcp(url, Authorization=bearer, Origin=f"http://localhost:{port}") == 200
    assert _mcp(url, Authorization=bearer, Host=f"evil.example:{port}") == 421
