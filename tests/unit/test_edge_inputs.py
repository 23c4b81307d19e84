"""Every hostile input from the hardening pass, through the real handlers over in-memory fakes: each is a
4xx whose body follows docs/openapi.json's ErrorBody, and none changes anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cfnlint.decode import decode
from fake_functions import DIMENSION, FakeFunctions, fake_functions
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_dev.cli.events import api_event, session_event, why_event
from retrieval_dev.serving import routes

REPO = Path(__file__).resolve().parents[2]
SPEC = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))
SESSION = "edge-s1"


def error_schema() -> dict[str, Any]:
    return {**SPEC["components"]["schemas"]["ErrorBody"], "$defs": SPEC["components"]["schemas"]}


def assert_error_body(body: Any) -> None:
    schema = json.loads(json.dumps(error_schema()).replace("#/components/schemas/", "#/$defs/"))
    jsonschema.validate(body, schema)


@pytest.fixture(scope="module")
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        yield composed


def post(body: Any = None, raw: str | None = None, content_type: str | None = "application/json") -> dict:
    event = api_event("POST", "/v1/retrieve", "acme", body=body)
    if raw is not None:
        event["body"] = raw
    if content_type is None:
        event["headers"].pop("Content-Type")
    else:
        event["headers"]["Content-Type"] = content_type
    return event


def session_count(functions: FakeFunctions, session_id: str = SESSION) -> int | None:
    event = session_event("acme", session_id)
    status, body, _ = functions.api("retrieve", event)
    return body["count"] if status == 200 else None


BIG = "9" * 5000
HOSTILE_BODIES = {
    "zero-vector": ({"mode": "vector", "vector": [0.0] * DIMENSION}, "vector"),
    "1e308-vector": ({"mode": "vector", "vector": [1e308] * DIMENSION}, "vector"),
    "5e-324-vector": ({"mode": "vector", "vector": [5e-324] * DIMENSION}, "vector"),
    "infinite-norm-vector": ({"mode": "vector", "vector": [3e38] * DIMENSION}, "vector"),
    "huge-int-in-vector": ({"mode": "vector", "vector": [10**400, 1, 1, 1]}, "vector"),
    "1500-words": ({"mode": "lexical", "text": "x " * 1500}, "text"),
    "1100-emoji": ({"mode": "lexical", "text": "\U0001f600" * 1100}, "text"),
    "1100-han": ({"mode": "hybrid", "text": "\u4e2d" * 1100}, "text"),
}
RAW_BODIES = {
    "nested-1000": ('{"mode": "lexical", "text": "x", "kinds": ' + "[" * 1000 + "]" * 1000 + "}", "(body)"),
    "nested-100": ('{"mode": "lexical", "text": "x", "kinds": ' + "[" * 100 + "]" * 100 + "}", "(body)"),
    "nested-object-1000": (
        '{"mode": "lexical", "text": "x", "pack": ' + '{"a":' * 1000 + "1" + "}" * 1001,
        "(body)",
    ),
    **{
        f"5000-digit-{field}": (
            json.dumps({"mode": "lexical", "text": "x", **value}).replace('"BIG"', BIG),
            field,
        )
        for field, value in {
            "top_k": {"top_k": "BIG"},
            "depth": {"depth": "BIG"},
            "pack.max_tokens": {"pack": {"max_tokens": "BIG"}},
            "pack.max_items": {"pack": {"max_tokens": 100, "max_items": "BIG"}},
            "session_limit": {"session_limit": "BIG"},
        }.items()
    },
    "40-digit-session_limit": (
        '{"mode": "lexical", "text": "x", "session_limit": ' + "9" * 40 + "}",
        "session_limit",
    ),
    "negative-5000-digit-top_k": ('{"mode": "lexical", "text": "x", "top_k": -' + BIG + "}", "top_k"),
    "not-json": ("{mode: lexical", "(body)"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_hostile_bodies_are_422_naming_the_field(functions: FakeFunctions, name: str) -> None:
    body, field = HOSTILE_BODIES[name]
    status, answer, _ = functions.api("retrieve", post({**body, "session_id": SESSION}))
    assert status == 422, answer
    assert answer["fields"][0]["field"].startswith(field)
    assert_error_body(answer)
    assert session_count(functions) is None


@pytest.mark.parametrize("name", sorted(RAW_BODIES))
def test_hostile_json_is_422_naming_the_field(functions: FakeFunctions, name: str) -> None:
    raw, field = RAW_BODIES[name]
    status, answer, _ = functions.api("retrieve", post(raw=raw))
    assert status == 422, answer
    assert answer["fields"][0]["field"].startswith(field)
    assert len(answer["message"]) < 300  # names the problem; never echoes the body
    assert_error_body(answer)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/vnd.api+json",
        None,
    ],
)
def test_a_body_not_declared_as_json_is_415_saying_what_to_send(
    functions: FakeFunctions, content_type: str
) -> None:
    # What the README's old curl example sent: a form whose only key was the whole JSON body. No type
    # at all is refused too, before anything is read or counted in the session the body names.
    body = '{"mode":"hybrid","text":"who leads payments","session_id":"' + SESSION + '"}'
    status, answer, _ = functions.api("retrieve", post(raw=body, content_type=content_type))
    assert status == 415, answer
    assert answer["error"] == "unsupported_media_type"
    assert "Content-Type: application/json" in answer["message"]
    assert "who leads payments" not in answer["message"]
    assert_error_body(answer)
    assert session_count(functions) is None  # the session was never created


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json; charset=utf-8",
        " application/json ",
        "Application/JSON",
        "APPLICATION/JSON; charset=UTF-8",
    ],
)
def test_json_or_no_content_type_is_accepted(functions: FakeFunctions, content_type: str | None) -> None:
    status, answer, _ = functions.api(
        "retrieve", post({"mode": "lexical", "text": "payments"}, content_type=content_type)
    )
    assert status == 200, answer


@pytest.mark.parametrize(
    ("first", "later", "status"),
    [("application/json", "text/plain", 415), ("text/plain", "APPLICATION/JSON", 200)],
)
def test_of_two_spellings_of_the_content_type_the_later_is_read_as_every_header_is(
    functions: FakeFunctions, first: str, later: str, status: int
) -> None:
    event = post({"mode": "lexical", "text": "payments"}, content_type=None)
    event["headers"] |= {"content-type": first, "CONTENT-TYPE": later}
    answer_status, answer, _ = functions.api("retrieve", event)
    assert answer_status == status, answer


@pytest.mark.parametrize("context_id", ["globex", ["globex"], {"id": "globex"}, 7, None])
def test_a_body_context_id_of_any_shape_is_ignored(functions: FakeFunctions, context_id: Any) -> None:
    status, answer, _ = functions.api(
        "retrieve", post({"mode": "lexical", "text": "Alice", "context_id": context_id})
    )
    assert status == 200, answer
    assert answer["hits"] and all(hit["id"].startswith("acme:") for hit in answer["hits"])


def test_a_context_with_a_trailing_newline_is_422_on_direct_invocation(functions: FakeFunctions) -> None:
    answer = functions.call("retrieve", {"context_id": "acme\n", "request": {"mode": "lexical", "text": "x"}})
    assert answer["statusCode"] == 422
    assert_error_body(answer["body"])


def test_a_chosen_context_with_a_trailing_newline_is_403(functions: FakeFunctions) -> None:
    event = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "x"})
    event["headers"]["X-Context-Id"] = "acme\n"
    status, answer, _ = functions.api("retrieve", event)
    assert status == 403
    assert_error_body(answer)


@pytest.mark.parametrize("session_id", ["s\n", "s" * 257, "s p", "s\u00e9"])
def test_session_ids_are_checked_in_full_in_the_path_and_the_header(
    functions: FakeFunctions, session_id: str
) -> None:
    event = session_event("acme", session_id)
    status, answer, _ = functions.api("retrieve", event)
    assert status == 422, answer
    assert_error_body(answer)
    event = post({"mode": "lexical", "text": "x"})
    event["headers"]["X-Retrieval-Session"] = session_id
    status, answer, _ = functions.api("retrieve", event)
    assert status == 422, answer
    assert_error_body(answer)


def test_an_item_id_past_the_limit_is_422(functions: FakeFunctions) -> None:
    item_id = "acme:" + "p" * 600
    event = why_event("acme", item_id)
    status, answer, _ = functions.api("why_explain", event)
    assert status == 422, answer
    assert answer["fields"][0]["field"] == "item_id"


def test_401_and_403_from_the_functions_follow_the_error_schema(functions: FakeFunctions) -> None:
    event = post({"mode": "lexical", "text": "x"})
    event["requestContext"]["authorizer"] = None
    status, answer, _ = functions.api("retrieve", event)
    assert status == 401
    assert_error_body(answer)
    event = api_event("POST", "/v1/retrieve", "acme,globex", body={"mode": "lexical", "text": "x"})
    event["headers"]["X-Context-Id"] = "initech"
    status, answer, _ = functions.api("retrieve", event)
    assert status == 403
    assert_error_body(answer)


def test_api_gateway_answers_and_serve_follow_the_error_schema() -> None:
    decoded, problems = decode(str(REPO / "template.yaml"))
    assert not problems
    responses = decoded["Resources"]["RetrievalApi"]["Properties"]["GatewayResponses"]
    bodies = {}
    for name, response in responses.items():
        template = response["ResponseTemplates"]["application/json"]
        bodies[name] = json.loads(
            template.replace("$context.error.messageString", '"Missing Authentication Token"')
        )
        assert_error_body(bodies[name])
    assert {"UNAUTHORIZED", "ACCESS_DENIED", "DEFAULT_4XX", "DEFAULT_5XX"} <= bodies.keys()
    assert bodies["UNAUTHORIZED"] == routes.UNAUTHORIZED_BODY
    assert bodies["ACCESS_DENIED"] == routes.ACCESS_DENIED_BODY
    assert bodies["DEFAULT_4XX"] == routes.MISSING_ROUTE_BODY


def test_the_spec_states_the_415_on_retrieve() -> None:
    assert "415" in SPEC["paths"]["/v1/retrieve"]["post"]["responses"]


def test_a_request_repr_summarises_its_vector_and_keeps_everything_else() -> None:
    request = RetrieveRequest.model_validate({"mode": "vector", "vector": [0.125] * 384, "top_k": 7})
    shown = repr(request)
    assert "vector=<384 numbers>" in shown and "0.125" not in shown
    assert '"top_k":7' in shown and '"mode":"vector"' in shown
    assert repr(RetrieveRequest.model_validate({"mode": "lexical", "text": "x"})) == (
        'RetrieveRequest({"mode":"lexical","text":"x"})'
    )
