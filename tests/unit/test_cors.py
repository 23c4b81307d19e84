"""Every answer a function gives through API Gateway carries Access-Control-Allow-Origin (a Lambda proxy
integration adds nothing: without it a browser hides even an error from the page); direct invocations,
which no browser makes, carry none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_functions import FakeFunctions, fake_functions
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.entrypoints.cors import ALLOW_ORIGIN, with_cors
from retrieval_dev.cli.events import api_event

ORIGIN = "https://app.example.com"


@pytest.fixture
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        configured = bootstrap.Container(
            Settings(cors_allow_origin=ORIGIN), overrides=_overrides(composed.container)
        )
        with bootstrap.use(configured):
            yield FakeFunctions(configured)


def _overrides(container: bootstrap.Container) -> dict[str, Any]:
    return {name: container.__dict__[name] for name in bootstrap.OVERRIDABLE if name in container.__dict__}


def _no_claims(event: dict[str, Any]) -> dict[str, Any]:
    del event["requestContext"]["authorizer"]["context_id"]
    return event


def _foreign_context(event: dict[str, Any]) -> dict[str, Any]:
    event["headers"]["X-Context-Id"] = "globex"
    return event


def _text_body(event: dict[str, Any]) -> dict[str, Any]:
    event["headers"]["Content-Type"] = "text/plain"
    return event


RETRIEVE = ("retrieve", "POST", "/v1/retrieve")
CASES = {
    "200": (RETRIEVE, {"mode": "lexical", "text": "Alice"}, None, 200),
    "422": (RETRIEVE, {"mode": "lexical", "text": "x", "top_k": "many"}, None, 422),
    "401 (no claim, before routing)": (RETRIEVE, {"mode": "lexical", "text": "x"}, _no_claims, 401),
    "403 (a context outside the claim)": (RETRIEVE, {"mode": "lexical", "text": "x"}, _foreign_context, 403),
    "415 (before routing)": (RETRIEVE, {"mode": "lexical", "text": "x"}, _text_body, 415),
    "404 why_explain": (("why_explain", "GET", "/v1/why/acme:p-404"), None, None, 404),
    "422 graph_path": (("graph_path", "GET", "/v1/graph/path"), None, None, 422),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_api_answer_names_the_configured_origin(functions: FakeFunctions, case: str) -> None:
    (function, method, path), body, change, expected = CASES[case]
    parameters = {"item_id": path.rsplit("/", 1)[-1]} if function == "why_explain" else None
    event = api_event(method, path, "acme", body=body, path_parameters=parameters)
    status, _, headers = functions.api(function, change(event) if change else event)
    assert status == expected
    assert headers[ALLOW_ORIGIN] == ORIGIN
    assert "Retry-After" in headers["Access-Control-Expose-Headers"].split(",")


def test_a_direct_invocation_carries_no_cors_headers(functions: FakeFunctions) -> None:
    result = functions.call("retrieve", {"context_id": "acme", "request": {"mode": "lexical", "text": "x"}})
    assert result["statusCode"] == 200 and ALLOW_ORIGIN not in (result.get("headers") or {})


def test_a_header_the_answer_sets_itself_is_kept() -> None:
    response = {"statusCode": 200, "multiValueHeaders": {"access-control-allow-origin": ["https://a.test"]}}
    assert ALLOW_ORIGIN not in with_cors(response, ORIGIN)["headers"]


def test_the_default_origin_is_any_and_settings_refuse_a_malformed_one() -> None:
    assert Settings().cors_allow_origin == "*"
    with pytest.raises(ValueError, match="cors_allow_origin"):
        Settings(cors_allow_origin="https://a.test/path")
