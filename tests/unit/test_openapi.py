"""The committed OpenAPI document is what the resolvers generate now, and it is self-consistent."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from retrieval_core.entrypoints.bedrock import AGENT_RESOURCES, GENERATE_ROUTES
from retrieval_core.entrypoints.bedrock import RESOURCE as KNOWLEDGE_BASE_RESOURCE
from retrieval_core.graph.models import GraphPathResponse
from retrieval_core.lineage.models import WhyExplainResponse
from retrieval_core.retrieval.paging import TOKEN_VERSION
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.retrieval.responses import RetrieveResponse
from retrieval_dev.bedrock_contract import operation as operation_model
from retrieval_dev.cli.lambda_runtime import lambda_environment
from retrieval_dev.cli.openapi import ErrorBody, build_spec, render
from retrieval_dev.serving import routes

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "docs" / "openapi.json"
EXAMPLED_MODELS: dict[str, type[BaseModel]] = {
    "RetrieveRequest": RetrieveRequest,
    "RetrieveResponse": RetrieveResponse,
    "GraphPathResponse": GraphPathResponse,
    "WhyExplainResponse": WhyExplainResponse,
    "ErrorBody": ErrorBody,
}


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    # Loading a handler module sets Lambda's environment variables; keep them out of other tests.
    with pytest.MonkeyPatch.context() as patch:
        for key, value in lambda_environment("retrieve").items():
            patch.setenv(key, os.environ.get(key, value))
        return build_spec(REPO / "functions")


def test_the_committed_spec_is_current(generated: dict[str, Any]) -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render(generated), (
        "docs/openapi.json is stale: regenerate it with `retrieval openapi --output docs/openapi.json`"
    )


def test_the_spec_documents_exactly_the_routes_serve_and_the_api_expose(generated: dict[str, Any]) -> None:
    documented = {(path, method.upper()) for path, ops in generated["paths"].items() for method in ops}
    # bedrock-agent's operations are botocore's model's (docs/BEDROCK.md), not described here.
    assert documented == {
        (resource, method) for method, _, _, resource in routes.ROUTES if resource not in AGENT_RESOURCES
    }


def test_every_reference_resolves_and_every_schema_is_used(generated: dict[str, Any]) -> None:
    text = json.dumps(generated)
    referenced = set(re.findall(r'"#/components/schemas/([^"]+)"', text))
    assert referenced == set(generated["components"]["schemas"])


def test_every_operation_needs_the_authorizer_and_documents_its_errors(generated: dict[str, Any]) -> None:
    assert generated["security"] == [{"RetrievalAuthorizer": []}]
    assert generated["components"]["securitySchemes"]["RetrievalAuthorizer"]["name"] == "Authorization"
    for path, operations in generated["paths"].items():
        if path == KNOWLEDGE_BASE_RESOURCE:
            continue  # Bedrock's errors and security: the next test
        if path in GENERATE_ROUTES:  # Bedrock's RetrieveAndGenerate: one ValidationException, always
            assert list(operations["post"]["responses"]) == ["400", "403"]
            continue
        for operation in operations.values():
            responses = operation["responses"]
            assert {"200", "401", "403", "422", "500", "503"} <= responses.keys()
            for status, response in responses.items():
                schema = response["content"]["application/json"]["schema"]
                assert (schema == {"$ref": "#/components/schemas/ErrorBody"}) == (status != "200")
            assert "X-Context-Id" in {p["name"] for p in operation["parameters"] if p["in"] == "header"}


def test_bedrock_s_retrieve_documents_sigv4_and_every_error_code_botocore_raises(
    generated: dict[str, Any],
) -> None:
    operation = generated["paths"][KNOWLEDGE_BASE_RESOURCE]["post"]
    assert operation["security"] == [{"SigV4": []}, {"RetrievalAuthorizer": []}]
    codes = set()
    for status, response in operation["responses"].items():
        schema = response["content"]["application/json"]["schema"]
        if status == "200":
            assert schema == {"$ref": "#/components/schemas/KnowledgeBaseRetrieveResponse"}
            continue
        assert schema == {"$ref": "#/components/schemas/ErrorMessage"}
        codes |= set(response["headers"]["x-amzn-ErrorType"]["schema"]["enum"])
    modelled = {shape.name for shape in operation_model().error_shapes}
    assert {"ValidationException", "AccessDeniedException", "ResourceNotFoundException"} <= codes <= modelled
    assert {"ThrottlingException", "ServiceQuotaExceededException"} <= codes


@pytest.mark.parametrize("name", sorted(EXAMPLED_MODELS))
def test_request_and_response_examples_are_valid_instances(generated: dict[str, Any], name: str) -> None:
    examples = generated["components"]["schemas"][name]["examples"]
    assert examples
    for example in examples:
        EXAMPLED_MODELS[name].model_validate(example)
        token = example.get("next_token")
        if token is not None:  # a token as this version issues it: four dot-separated parts
            assert token.startswith(f"{TOKEN_VERSION}.") and token.count(".") == 3, token


def test_no_combinator_has_fewer_than_two_alternatives(generated: dict[str, Any]) -> None:
    """What Redocly's lint reports as illogical: an anyOf/oneOf/allOf of one schema is that schema."""
    lonely: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            lonely.extend(f"{path}/{k}" for k in ("anyOf", "oneOf") if len(node.get(k, [None, None])) < 2)
            for key, child in node.items():
                walk(child, f"{path}/{key}")
        elif isinstance(node, list):
            for position, child in enumerate(node):
                walk(child, f"{path}[{position}]")

    walk(generated, "")
    assert lonely == []
