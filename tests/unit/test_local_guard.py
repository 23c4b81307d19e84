"""The local servers trust no page (retrieval_dev/serving/local_guard.py, gateway.cors_for): a Host other
than the server's own address is 421 (DNS rebinding), a foreign Origin 403 (another site, or a page on
another localhost port), a missing or wrong bearer secret 401; CORS goes only to configured origins."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from retrieval_dev.serving.gateway import Answer, cors_for
from retrieval_dev.serving.local_guard import LocalGuard, local_addresses

PORT = 3100


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def _status(guard: LocalGuard, headers: dict[str, str]) -> int:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(guard(scope, receive, send))
    return int(sent[0]["status"])


@pytest.fixture
def guard() -> LocalGuard:
    return LocalGuard(_app, local_addresses("127.0.0.1", PORT), bearer="s3cret")


AUTH = {"Authorization": "Bearer s3cret"}


@pytest.mark.parametrize("host", ["127.0.0.1:3100", "localhost:3100", "[::1]:3100", "LOCALHOST:3100"])
def test_the_server_s_own_addresses_are_answered(guard: LocalGuard, host: str) -> None:
    assert _status(guard, {"Host": host} | AUTH) == 200


@pytest.mark.parametrize(
    "host", ["evil.example:3100", "evil.example", "127.0.0.1:9999", "localhost", "", "127.0.0.1.nip.io:3100"]
)
def test_any_other_host_is_misdirected(guard: LocalGuard, host: str) -> None:
    assert _status(guard, {"Host": host} | AUTH) == 421


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://127.0.0.1:3100", 200),
        ("http://localhost:3100", 200),
        ("http://localhost:9999", 403),  # another localhost port: another page
        ("http://evil.example:3100", 403),
        ("null", 403),
        ("https://127.0.0.1:3100", 403),
    ],
)
def test_only_the_server_s_own_origin_is_allowed(guard: LocalGuard, origin: str, status: int) -> None:
    assert _status(guard, {"Host": "127.0.0.1:3100", "Origin": origin} | AUTH) == status


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", "Bearer s3cret2", "s3cret", "Bearer dev:acme", "bearer s3cret"]
)
def test_the_bearer_secret_is_required(guard: LocalGuard, authorization: str | None) -> None:
    headers = {"Host": "127.0.0.1:3100"} | ({} if authorization is None else {"Authorization": authorization})
    assert _status(guard, headers) == 401


def test_named_hosts_and_origins_are_added_with_the_server_s_port() -> None:
    addresses = local_addresses("127.0.0.1", 3000, ["dev.box", "other:8080"], ["https://app.example.com"])
    guard = LocalGuard(_app, addresses)
    assert _status(guard, {"Host": "dev.box:3000"}) == 200
    assert _status(guard, {"Host": "other:8080"}) == 200
    assert _status(guard, {"Host": "dev.box:3001"}) == 421
    assert _status(guard, {"Host": "127.0.0.1:3000", "Origin": "https://app.example.com"}) == 200
    assert _status(guard, {"Host": "127.0.0.1:3000"}) == 200  # no secret asked for without one


def test_a_wildcard_bind_adds_no_name_but_a_named_address_is_its_own() -> None:
    assert local_addresses("0.0.0.0", 3000).hosts == {"127.0.0.1:3000", "localhost:3000", "[::1]:3000"}
    assert "10.0.0.5:3000" in local_addresses("10.0.0.5", 3000).hosts


def test_cors_is_granted_only_to_a_configured_origin() -> None:
    answer = Answer(200, [("Access-Control-Allow-Origin", "*"), ("Content-Type", "application/json")], "{}")
    assert cors_for(answer, "http://evil.example", frozenset()).headers == [
        ("Content-Type", "application/json")
    ]
    allowed = frozenset({"https://app.example.com"})
    granted = dict(cors_for(answer, "https://app.example.com", allowed).headers)
    assert granted["Access-Control-Allow-Origin"] == "https://app.example.com" and granted["Vary"] == "Origin"
    assert "Access-Control-Allow-Origin" not in dict(cors_for(answer, "http://evil.example", allowed).headers)
