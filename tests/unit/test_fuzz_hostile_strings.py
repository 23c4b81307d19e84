"""Issue 40: the classes of input that gave 5xx one field at a time, fuzzed at every field of both
retrieve routes through the real handlers (in-process, over the unit-test fakes). Bodies come from the
models the callers use: docs/openapi.json's ``RetrieveRequest`` for ``POST /v1/retrieve`` and botocore's
own service model (``bedrock-agent-runtime``'s ``Retrieve``) for ``POST /knowledgebases/{id}/retrieve``.
One string leaf of a valid body, at any depth (filter values, metadata keys, ids, ``now``), or the whole
value of a field, is swapped for a hostile one: lone surrogates, NUL, combining-mark runs, very long text,
huge numbers, moments at the calendar's edges.

What must hold for every request: never a 5xx (the Bedrock route never ``InternalServerException``,
which botocore retries); a 4xx leaves the session it names unchanged; no answer carries an id of another
context that the request did not itself name. ``FUZZ_EXAMPLES`` (``make fuzz``) runs a long campaign; the
default is a fixed-seed sample for ``make test``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from fake_functions import ACME_KB, FakeFunctions, fake_functions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from retrieval_core.entrypoints.bedrock import RESOURCE
from retrieval_dev.cli.events import api_event, session_event

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))["components"]["schemas"]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
SESSION = "fuzz-hostile"
FOREIGN_ID = re.compile(r"globex:[\w/#.-]+")
HOSTILE_STRINGS = [
    "\ud800",
    "x\udfffy",
    "\udbff\udbff",
    "\x00",
    "a\x00b",
    "e" + "\u0301" * 500,
    "\u200d" * 100,
    "x" * 5000,
    "x" * 1_100_000,
    "0001-01-01T00:00:00+14:00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59-12:00",
    "9999-12-31T23:59:59.999999Z",
    "99999-03-01T00:00:00Z",
    "in March 99999 before 0001-01-01 after 9999-12-31 last month yesterday currently",
    "globex:doc-1#c1",
]
HOSTILE_NUMBERS = [10**400, -(10**400), 2**63, 1e308, -1e308, 5e-324, 0, -1]
hostile_strings = st.sampled_from(HOSTILE_STRINGS) | st.text(
    alphabet=st.characters(codec=None, categories=("Cs", "Cc", "Mn", "Lo")), max_size=20
)
hostile_values = hostile_strings | st.sampled_from(HOSTILE_NUMBERS)


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def from_openapi(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Valid-looking values for a JSON Schema of the spec (small: the hostile swap does the rest)."""
    schema = resolve(schema)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_openapi(s, depth) for s in schema[key]])
    kind = schema.get("type")
    if kind == "string":
        if schema.get("format") == "date-time":
            return st.sampled_from(["2026-03-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T00:00:00Z"])
        return st.sampled_from(["who leads payments", "acme:p-1", "ledger", "in March 2026"])
    if kind in ("integer", "number"):
        return st.integers(min_value=0, max_value=20)
    if kind == "boolean":
        return st.booleans()
    if kind == "array" and depth < 4:
        return st.lists(from_openapi(schema.get("items", {}), depth + 1), max_size=3)
    if kind == "object" and depth < 4:
        properties = schema.get("properties", {})
        if not properties:
            return st.dictionaries(
                st.sampled_from(["team", "a.b", "x"]), st.sampled_from(["ledger", 1]), max_size=2
            )
        return st.fixed_dictionaries(
            {}, optional={name: from_openapi(sub, depth + 1) for name, sub in properties.items()}
        )
    return st.none()


def from_botocore(shape: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Valid-looking values for a botocore shape (the Bedrock client's own request model)."""
    if shape.type_name == "structure" and depth < 6:
        members = {
            name: from_botocore(member, depth + 1)
            for name, member in shape.members.items()
            if member.serialization.get("location") != "uri"
        }
        return st.fixed_dictionaries({}, optional=members)
    if shape.type_name == "list" and depth < 6:
        return st.lists(from_botocore(shape.member, depth + 1), max_size=2)
    if shape.type_name == "string":
        enum = shape.metadata.get("enum")
        return st.sampled_from(enum) if enum else st.sampled_from(["who leads payments", "team", "ledger"])
    if shape.type_name in ("integer", "long"):
        return st.integers(min_value=1, max_value=20)
    if shape.type_name in ("float", "double"):
        return st.floats(min_value=0, max_value=1)
    if shape.type_name == "boolean":
        return st.booleans()
    if shape.type_name == "map":
        return st.dictionaries(st.sampled_from(["team", "x"]), st.sampled_from(["ledger", "1"]), max_size=2)
    return st.sampled_from(["ledger", 1, True])  # a document (filter values)


RETRIEVE_INPUT = (
    botocore.session.get_session()
    .get_service_model("bedrock-agent-runtime")
    .operation_model("Retrieve")
    .input_shape
)


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in ``value`` a hostile value can go: each value, each key (as ``("key", k)``)."""
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*path, ("key", key))
            yield from leaves(child, (*path, key))
    elif isinstance(value, list):
        for n, child in enumerate(value):
            yield from leaves(child, (*path, n))


def swapped(value: Any, path: tuple[Any, ...], hostile: Any) -> Any:
    if not path:
        return hostile
    head, rest = path[0], path[1:]
    if isinstance(head, tuple):  # a key
        return {(hostile if k == head[1] and isinstance(hostile, str) else k): v for k, v in value.items()}
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = swapped(value[head], rest, hostile)
    return copy


@st.composite
def hostile_bodies(draw: st.DrawFn, valid: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    body = draw(valid)
    places = [path for path in leaves(body) if path]
    for _ in range(draw(st.integers(1, 2))):
        if not places:
            break
        body = swapped(body, draw(st.sampled_from(places)), draw(hostile_values))
        places = [path for path in leaves(body) if path]
    return body


native_bodies = hostile_bodies(
    from_openapi(SCHEMAS["RetrieveRequest"]).map(lambda b: {"mode": "auto", "text": "payments", **b})
)
bedrock_bodies = hostile_bodies(
    from_botocore(RETRIEVE_INPUT).map(lambda b: {"retrievalQuery": {"text": "payments"}, **b})
)


def kb_event(body: dict[str, Any]) -> dict[str, Any]:
    path = f"/knowledgebases/{ACME_KB}/retrieve"
    return {
        "resource": RESOURCE,
        "path": path,
        "httpMethod": "POST",
        "headers": {"Content-Type": "application/json", "X-Retrieval-Session": SESSION},
        "pathParameters": {"knowledgeBaseId": ACME_KB},
        "requestContext": {
            "resourcePath": RESOURCE,
            "httpMethod": "POST",
            "stage": "fuzz",
            "requestId": "fuzz",
            "authorizer": {"principalId": "p", "context_id": "acme"},
            "identity": {},
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


@pytest.fixture(scope="module")
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        yield composed


def error_type(result: dict[str, Any]) -> str:
    """Bedrock's ``x-amzn-ErrorType`` (Powertools puts it in ``multiValueHeaders``)."""
    multi = (result.get("multiValueHeaders") or {}).get("x-amzn-ErrorType") or [""]
    return str((result.get("headers") or {}).get("x-amzn-ErrorType", multi[-1]))


def session_state(functions: FakeFunctions) -> tuple[int, str]:
    result = functions.call("retrieve", session_event("acme", SESSION))
    return result["statusCode"], result["body"]


def check(functions: FakeFunctions, event: dict[str, Any]) -> None:
    before = session_state(functions)
    result = functions.call("retrieve", event)
    status, body = result["statusCode"], result.get("body") or ""
    assert status < 500, (status, body, event["body"][:500])
    assert "InternalServer" not in error_type(result), (body, event["body"][:500])
    if status >= 400:
        assert session_state(functions) == before, event["body"][:500]
    asked = set(FOREIGN_ID.findall(event["body"]))
    assert not set(FOREIGN_ID.findall(body)) - asked, body[:500]


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@FUZZ
@given(body=native_bodies)
def test_no_hostile_field_of_a_native_retrieve_is_a_5xx(
    functions: FakeFunctions, body: dict[str, Any]
) -> None:
    event = api_event("POST", "/v1/retrieve", "acme", body={**body, "session_id": SESSION})
    check(functions, event)


@FUZZ
@given(body=bedrock_bodies)
def test_no_hostile_field_of_a_bedrock_retrieve_is_a_5xx(
    functions: FakeFunctions, body: dict[str, Any]
) -> None:
    check(functions, kb_event(body))


@pytest.mark.parametrize("where", ["text", "filter value", "filter key", "metadata-like key", "session_id"])
def test_a_lone_surrogate_anywhere_in_a_native_retrieve_is_a_422(
    functions: FakeFunctions, where: str
) -> None:
    body: dict[str, Any] = {
        "text": {"mode": "lexical", "text": "pay\ud800"},
        "filter value": {
            "mode": "lexical",
            "text": "x",
            "filter": {"eq": {"key": "metadata.team", "value": "\ud800"}},
        },
        "filter key": {
            "mode": "lexical",
            "text": "x",
            "filter": {"eq": {"key": "metadata.\ud800", "value": "x"}},
        },
        "metadata-like key": {"mode": "lexical", "text": "x", "filter": {"all_of": [{"\ud800": {}}]}},
        "session_id": {"mode": "lexical", "text": "x", "session_id": "s\ud800"},
    }[where]
    status, answer, _ = functions.api("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    assert status == 422, answer


def test_a_lone_surrogate_in_a_bedrock_filter_value_is_a_validation_exception(
    functions: FakeFunctions,
) -> None:
    body = {
        "retrievalQuery": {"text": "payments"},
        "retrievalConfiguration": {
            "vectorSearchConfiguration": {"filter": {"equals": {"key": "team", "value": "\ud800"}}}
        },
    }
    result = functions.call("retrieve", kb_event(body))
    assert result["statusCode"] == 400
    assert error_type(result).startswith("ValidationException")


HEADERS = [
    "X-Correlation-Id",
    "X-Context-Id",
    "X-Retrieval-Session",
    "Idempotency-Key",
    "Content-Type",
    "X-Other",
]


@pytest.mark.parametrize("hostile", ["\ud800", "a\x00b"], ids=["surrogate", "nul"])
@pytest.mark.parametrize("name", HEADERS)
def test_a_hostile_header_on_either_route_is_no_5xx(
    functions: FakeFunctions, name: str, hostile: str
) -> None:
    native = api_event("POST", "/v1/retrieve", "acme", body={"mode": "lexical", "text": "payments"})
    bedrock = kb_event({"retrievalQuery": {"text": "payments"}})
    for event in (native, bedrock):
        event["headers"][name] = hostile
        result = functions.call("retrieve", event)
        assert result["statusCode"] < 500, result
        assert "InternalServer" not in error_type(result)


@pytest.mark.parametrize("hostile", ["\ud800", "a\x00b", "%ED%A0%80", "%00"])
def test_a_hostile_path_or_query_parameter_is_no_5xx(functions: FakeFunctions, hostile: str) -> None:
    events = {
        "retrieve": session_event("acme", hostile),
        "why_explain": api_event(
            "GET", f"/v1/why/{hostile}", "acme", path_parameters={"proposition_id": hostile}
        ),
        "graph_path": api_event(
            "GET", "/v1/graph/path", "acme", query={"from": hostile, "to": "acme:team/payments"}
        ),
    }
    for function, event in events.items():
        result = functions.call(function, event)
        assert result["statusCode"] < 500, (function, result)
