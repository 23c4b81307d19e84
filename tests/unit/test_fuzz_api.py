"""Property-based fuzzing of every operation in docs/openapi.json against the real handlers (in-process,
over the unit-test fakes): whatever is sent, the answer is never a 5xx and every 4xx body follows the
spec's ErrorBody.

Requests are generated from the spec itself: parameters and bodies follow their schemas, but any value
may be swapped for arbitrary JSON, any required field dropped, an unknown one added, the body replaced by
raw text, the content type or the caller's claims changed. The seed is fixed (``derandomize``), so a run
is reproducible; the example count is high enough (>= 2,000 over all operations) to find the classes of
bugs the hardening pass found by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema
import pytest
from fake_functions import FakeFunctions, fake_functions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
SPEC = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))
SCHEMAS = SPEC["components"]["schemas"]
FUNCTION_OF = {
    "/v1/retrieve": "retrieve",
    "/v1/sessions/{session_id}": "retrieve",
    "/v1/documents": "retrieve",
    "/v1/documents/{key}": "retrieve",
    "/v1/graph/path": "graph_path",
    "/v1/why/{item_id}": "why_explain",
    "/knowledgebases/{knowledgeBaseId}/retrieve": "retrieve",
    "/retrieveAndGenerate": "retrieve",
    "/retrieveAndGenerateStream": "retrieve",
}
OPERATIONS = [(path, method.upper(), op) for path, ops in SPEC["paths"].items() for method, op in ops.items()]
EXAMPLES = 2000


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator for a schema of the spec, its references resolved within the spec."""
    inlined = json.loads(
        json.dumps({**schema, "$defs": SCHEMAS}).replace("#/components/schemas/", "#/$defs/")
    )
    return jsonschema.Draft202012Validator(inlined)


ERROR_VALIDATOR = validator(SCHEMAS["ErrorBody"])


def error_validator(operation: dict[str, Any], status: int) -> jsonschema.Draft202012Validator:
    """The schema the operation documents for ``status`` (Bedrock's Retrieve has its own), else ErrorBody."""
    documented = operation["responses"].get(str(status))
    if documented is None:
        return ERROR_VALIDATOR
    return validator(documented["content"]["application/json"]["schema"])


json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
big_numbers = st.sampled_from(
    [0, -1, 2**31, 2**63, 10**40, 1e308, -1e308, 5e-324, float("inf"), float("nan")]
)


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def from_schema(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly-valid values for a (small) JSON Schema; anything may turn into arbitrary JSON."""
    schema = resolve(schema)
    valid = _valid_for(schema, depth)
    return st.one_of(valid, valid, valid, json_values, big_numbers)


def _valid_for(schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_valid_for(resolve(s), depth) for s in schema[key]])
    kind = schema.get("type")
    if kind == "string":
        if schema.get("format") == "date-time":
            return st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat())
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 40), 40))
    if kind == "integer":
        return st.integers(min_value=-5, max_value=150)
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        item = from_schema(schema.get("items", {}), depth + 1)
        return st.lists(item, min_size=schema.get("minItems", 0), max_size=6)
    if kind == "object" and depth < 3:
        return _objects(schema, depth)
    return json_values


def _objects(schema: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not properties:
        keys = from_schema(schema.get("propertyNames", {"type": "string"}), depth + 1)
        additional = schema.get("additionalProperties", {})
        values = from_schema(additional if isinstance(additional, dict) else {}, depth + 1)
        return st.dictionaries(keys.map(str), values, max_size=4)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        value: dict[str, Any] = {}
        for name, sub in properties.items():
            keep = name in required and draw(st.integers(0, 19)) > 0  # drop a required field 1 in 20
            if keep or draw(st.integers(0, 2)) == 0:
                value[name] = draw(from_schema(sub, depth + 1))
        if draw(st.integers(0, 14)) == 0:
            value[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
        return value

    return build()


CLAIMS = st.sampled_from(["acme", "acme", "acme", "acme,globex", "globex", "ACME", "", None, "acme\n"])
IAM_USERS = st.sampled_from([None, None, "arn:aws:iam::000000000000:user/dev-acme", ""])
CONTENT_TYPES = st.sampled_from(
    ["application/json"] * 6 + [None, "text/plain", "application/x-www-form-urlencoded", "application/xml"]
)


@st.composite
def api_events(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any]]:
    path, method, operation = draw(st.sampled_from(OPERATIONS))
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    path_parameters: dict[str, str] = {}
    for parameter in operation.get("parameters", []):
        required = parameter.get("required", False)
        if not required and draw(st.booleans()):
            continue
        value = draw(st.one_of(from_schema(parameter["schema"]), st.text(max_size=30)))
        text = value if isinstance(value, str) else json.dumps(value)
        target = {"header": headers, "query": query, "path": path_parameters}[parameter["in"]]
        target[parameter["name"]] = text
    resolved = path
    for name, value in path_parameters.items():
        resolved = resolved.replace("{" + name + "}", quote(value, safe=":"))
    body = None
    if "requestBody" in operation:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        choice = draw(st.integers(0, 9))
        if choice < 7:
            body = json.dumps(draw(_valid_for(resolve(schema), 0)))
        elif choice < 9:
            body = json.dumps(draw(json_values))
        else:
            body = draw(st.text(max_size=60))
        content_type = draw(CONTENT_TYPES)
        if content_type is not None:
            headers["Content-Type"] = content_type
    claim = draw(CLAIMS)
    event = {
        "resource": path,
        "path": resolved,
        "httpMethod": method,
        "headers": headers,
        "queryStringParameters": query or None,
        "pathParameters": path_parameters or None,
        "requestContext": {
            "resourcePath": path,
            "httpMethod": method,
            "stage": "fuzz",
            "requestId": "fuzz",
            "authorizer": None if claim is None else {"principalId": "fuzz", "context_id": claim},
            "identity": {"userArn": draw(IAM_USERS)},
        },
        "body": body,
        "isBase64Encoded": False,
    }
    return FUNCTION_OF[path], event, operation


@pytest.fixture(scope="module")
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        yield composed


def test_the_fuzzer_covers_every_operation() -> None:
    assert {(path, method) for path, method, _ in OPERATIONS} == {
        ("/v1/retrieve", "POST"),
        ("/v1/sessions/{session_id}", "GET"),
        ("/v1/documents", "GET"),
        ("/v1/documents/{key}", "GET"),
        ("/v1/graph/path", "GET"),
        ("/v1/why/{item_id}", "GET"),
        ("/knowledgebases/{knowledgeBaseId}/retrieve", "POST"),
        ("/retrieveAndGenerate", "POST"),
        ("/retrieveAndGenerateStream", "POST"),
    }


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(request=api_events())
def test_no_generated_request_gets_a_5xx_and_every_4xx_follows_the_error_schema(
    functions: FakeFunctions, request: tuple[str, dict[str, Any], dict[str, Any]]
) -> None:
    function, event, operation = request
    result = functions.call(function, event)
    status = result["statusCode"]
    assert status < 500, (status, result.get("body"), event)
    body = json.loads(result["body"])
    if status >= 400:
        errors = sorted(error_validator(operation, status).iter_errors(body), key=str)
        assert not errors, (status, body, errors[0].message)
