"""A browser calling the API from a configured origin, through `retrieval serve` (which answers
preflights as the deployed functions do, and runs the real handlers): the preflight allows every header
the page sends, and every answer, errors included, names the page's origin. The checks are
the ones a browser makes (Fetch standard, "CORS check" and "CORS-preflight fetch"); a page is shown an
answer only if they pass."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from cli_process import serving

from dev.sample import known

ORIGIN = "http://localhost:5173"
LEXICAL = next(q for q in known.LEXICAL_QUERIES if q.context == "acme")
# What a browser adds to a cross-origin fetch() on its own (the page cannot set these).
BROWSER_HEADERS = {
    "Origin": ORIGIN,
    "Referer": f"{ORIGIN}/",
    "Accept": "*/*",
    "Accept-Language": "en-GB,en;q=0.9",
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Dest": "empty",
}
SAFELISTED_METHODS = {"GET", "HEAD", "POST"}


@pytest.fixture(scope="module")
def base_url(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("serve-cors") / "serve.log"
    env = os.environ | corpus_settings.to_env() | {"RETRIEVAL_CORS_ORIGINS": ORIGIN}
    with serving(["serve"], log, env) as url:
        yield url


def exchange(
    base_url: str, method: str, path: str, headers: dict[str, str], body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = Request(base_url + path, data=data, method=method, headers=headers)
    try:
        with urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def preflight(base_url: str, method: str, path: str, page_headers: list[str]) -> tuple[int, dict[str, str]]:
    headers = BROWSER_HEADERS | {
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": ",".join(sorted(h.lower() for h in page_headers)),
    }
    status, answer, _ = exchange(base_url, "OPTIONS", path, headers)
    return status, answer


def _listed(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def browser_allows_preflight(
    status: int, answer: dict[str, str], method: str, page_headers: list[str]
) -> bool:
    """The browser's check of a preflight answer (no credentials mode: cookies are not used here)."""
    if not 200 <= status < 300 or not origin_allowed(answer):
        return False
    methods = _listed(answer.get("access-control-allow-methods"))
    allowed_headers = _listed(answer.get("access-control-allow-headers"))
    # "*" allows any header but Authorization, which must be named.
    for header in (h.lower() for h in page_headers):
        named = header in allowed_headers
        if not named and not ("*" in allowed_headers and header != "authorization"):
            return False
    return method in SAFELISTED_METHODS or method.lower() in methods or "*" in methods


def origin_allowed(answer: dict[str, str]) -> bool:
    return answer.get("access-control-allow-origin") in {ORIGIN, "*"}


PAGE_HEADERS = ["Authorization", "Content-Type", "X-Context-Id", "X-Retrieval-Session", "Idempotency-Key"]


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/retrieve"), ("GET", "/v1/sessions/s-1"), ("GET", "/v1/graph/path"), ("GET", "/v1/why/x")],
)
def test_a_preflight_allows_the_pages_call(base_url: str, method: str, path: str) -> None:
    status, answer = preflight(base_url, method, path, PAGE_HEADERS)
    assert browser_allows_preflight(status, answer, method, PAGE_HEADERS), (status, answer)
    assert answer["access-control-allow-origin"] == ORIGIN
    assert int(answer["access-control-max-age"]) > 0


def test_a_preflight_of_an_unknown_route_is_the_gateways_403_with_the_origin(base_url: str) -> None:
    status, answer = preflight(base_url, "POST", "/v1/nowhere", PAGE_HEADERS)
    assert status == 403 and origin_allowed(answer)


def call(base_url: str, body: Any, **page_headers: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    headers = BROWSER_HEADERS | {"Content-Type": "application/json"} | page_headers
    status, answer, raw = exchange(base_url, "POST", "/v1/retrieve", headers, body)
    return status, answer, json.loads(raw)


def page_headers(context: str = "acme", token: str = "Bearer dev:acme,globex") -> dict[str, str]:
    return {
        "Authorization": token,
        "X-Context-Id": context,
        "X-Retrieval-Session": f"cors-{uuid.uuid4().hex[:12]}",
        "Idempotency-Key": str(uuid.uuid4()),
    }


def test_a_cross_origin_post_is_shown_to_the_page(base_url: str) -> None:
    status, answer, body = call(base_url, {"mode": "lexical", "text": LEXICAL.text}, **page_headers())
    assert status == 200 and origin_allowed(answer)
    assert body["hits"][0]["id"] == LEXICAL.expected_first
    assert "retry-after" in _listed(answer.get("access-control-expose-headers"))


@pytest.mark.parametrize(
    ("body", "headers", "expected"),
    [
        ({"mode": "lexical", "text": "x", "top_k": "many"}, page_headers(), (422, "invalid_request")),
        ({"mode": "lexical", "text": "x"}, page_headers(context="initech"), (403, "forbidden")),
        (
            {"mode": "lexical", "text": "x"},
            page_headers(token="Bearer not-a-dev-token"),
            (401, "unauthenticated"),
        ),
    ],
    ids=["422-from-the-function", "403-from-the-gateway-s-deny", "401-from-the-gateway"],
)
def test_an_error_answer_is_shown_to_the_page_too(
    base_url: str, body: Any, headers: dict[str, str], expected: tuple[int, str]
) -> None:
    status, answer, error = call(base_url, body, **headers)
    assert (status, error["error"]) == expected
    assert origin_allowed(answer) and answer["access-control-allow-origin"] == ORIGIN
