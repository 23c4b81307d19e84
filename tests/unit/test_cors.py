"""Every answer a function gives through API Gateway, errors and preflights included, names the request's
Origin in Access-Control-Allow-Origin when it is a configured origin (a Lambda proxy integration adds
nothing: without it a browser hides even an error from the page), and grants a foreign page nothing, nor
any page by default; direct invocations, which no browser makes, carry none."""

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
OTHER_ORIGIN = "https://admin.example.com"
FOREIGN_ORIGIN = "https://evil.example"


@pytest.fixture
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        configured = bootstrap.Container(
            Settings(cors_origins=(ORIGIN, OTHER_ORIGIN)), overrides=_overrides(composed.container)
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


def _case_event(case: str, origin: str | None) -> tuple[str, dict[str, Any], int]:
    (function, method, path), body, change, expected = CASES[case]
    parameters = {"item_id": path.rsplit("/", 1)[-1]} if function == "why_explain" else None
    event = api_event(method, path, "acme", body=body, path_parameters=parameters)
    if origin is not None:
        event["headers"]["Origin"] = origin
    return function, change(event) if change else event, expected


@pytest.mark.parametrize("origin", [ORIGIN, OTHER_ORIGIN])
@pytest.mark.parametrize("case", list(CASES))
def test_every_api_answer_names_a_configured_origin(functions: FakeFunctions, case: str, origin: str) -> None:
    function, event, expected = _case_event(case, origin)
    status, _, headers = functions.api(function, event)
    assert status == expected
    assert headers[ALLOW_ORIGIN] == origin and headers["Vary"] == "Origin"
    assert "Retry-After" in headers["Access-Control-Expose-Headers"].split(",")


@pytest.mark.parametrize("origin", [FOREIGN_ORIGIN, "null", "https://app.example.com.evil.example", None])
@pytest.mark.parametrize("case", ["200", "403 (a context outside the claim)"])
def test_a_foreign_page_is_granted_nothing(functions: FakeFunctions, case: str, origin: str | None) -> None:
    function, event, expected = _case_event(case, origin)
    status, _, headers = functions.api(function, event)
    assert status == expected
    assert not {name.lower() for name in headers} & {"access-control-allow-origin", "vary"}


def _preflight(path: str, origin: str) -> dict[str, Any]:
    event = api_event("OPTIONS", path, "acme")
    event["requestContext"]["authorizer"] = None  # API Gateway runs no authorizer for OPTIONS
    event["headers"] = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    return event


@pytest.mark.parametrize(
    ("function", "path"),
    [("retrieve", "/v1/retrieve"), ("graph_path", "/v1/graph/path"), ("why_explain", "/v1/why/acme:p-1")],
)
def test_a_preflight_is_answered_by_the_function_without_credentials(
    functions: FakeFunctions, function: str, path: str
) -> None:
    status, _, granted = functions.api(function, _preflight(path, ORIGIN))
    assert status == 200 and granted[ALLOW_ORIGIN] == ORIGIN
    assert set(granted["Access-Control-Allow-Headers"].split(",")) >= {"Authorization", "X-Context-Id"}
    status, _, refused = functions.api(function, _preflight(path, FOREIGN_ORIGIN))
    assert status == 200 and ALLOW_ORIGIN not in refused  # the browser then refuses the call itself


def test_by_default_no_page_is_granted_anything() -> None:
    with fake_functions() as composed:
        assert composed.container.settings.cors_origins == ()
        event = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "Alice"})
        event["headers"]["Origin"] = ORIGIN
        status, _, headers = FakeFunctions(composed.container).api("retrieve", event)
        _, _, preflight = FakeFunctions(composed.container).api(
            "retrieve", _preflight("/v1/retrieve", ORIGIN)
        )
    assert status == 200 and ALLOW_ORIGIN not in headers and ALLOW_ORIGIN not in preflight


def test_a_direct_invocation_carries_no_cors_headers(functions: FakeFunctions) -> None:
    result = functions.call("retrieve", {"context_id": "acme", "request": {"mode": "lexical", "text": "x"}})
    assert result["statusCode"] == 200 and ALLOW_ORIGIN not in (result.get("headers") or {})


def test_a_header_the_answer_sets_itself_is_kept() -> None:
    response = {"statusCode": 200, "multiValueHeaders": {"access-control-allow-origin": ["https://a.test"]}}
    assert ALLOW_ORIGIN not in with_cors(response, ORIGIN)["headers"]


def test_origins_are_a_comma_list_compared_as_browsers_send_them() -> None:
    settings = Settings.from_env({"RETRIEVAL_CORS_ORIGINS": "https://App.Example.com, http://localhost:8080"})
    assert settings.cors_origins == ("https://app.example.com", "http://localhost:8080")
    assert Settings.from_env(settings.to_env()).cors_origins == settings.cors_origins
    assert Settings().cors_origins == ()


@pytest.mark.parametrize("origins", ["*", "https://a.test/path", "https://a.test,ftp://b.test", "a.test"])
def test_settings_refuse_what_is_no_origin(origins: str) -> None:
    with pytest.raises(ValueError, match="cors_origins"):
        Settings.from_env({"RETRIEVAL_CORS_ORIGINS": origins})
