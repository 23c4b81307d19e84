"""Bedrock Knowledge Bases' Retrieve on the retrieve function, in-process over the unit-test fakes: the
request translated into the same service call, the answer in botocore's output shape, every error with a
modelled code, and the knowledge base granted only by claims or IAM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_functions import FakeFunctions, fake_functions
from retrieval_core.entrypoints.bedrock import RESOURCE
from retrieval_core.entrypoints.bedrock.filters import translate_filter
from retrieval_core.models.filters import Filter
from retrieval_dev.bedrock_contract import error_code, response_problems

QUERY = {"retrievalQuery": {"text": "Alice payments"}}


@pytest.fixture(scope="module")
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        yield composed


def kb_event(
    knowledge_base: str,
    body: Any,
    *,
    claims: str | None = "acme",
    iam_user: str | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    path = f"/knowledgebases/{knowledge_base}/retrieve"
    return {
        "resource": RESOURCE,
        "path": path,
        "httpMethod": "POST",
        "headers": {"Content-Type": "application/json", **(headers or {})},
        "pathParameters": {"knowledgeBaseId": knowledge_base},
        "requestContext": {
            "resourcePath": RESOURCE,
            "httpMethod": "POST",
            "stage": "test",
            "requestId": "r",
            "authorizer": None if claims is None else {"principalId": "p", "context_id": claims},
            "identity": {"userArn": iam_user, "accessKey": "AKID" if iam_user else None},
        },
        "body": body if isinstance(body, str) or body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def call(functions: FakeFunctions, event: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    result = functions.call("retrieve", event)
    headers = {**(result.get("headers") or {})}
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.setdefault(name, values[-1])
    return result["statusCode"], headers, (result["body"] or "").encode()


def ok(functions: FakeFunctions, event: dict[str, Any]) -> dict[str, Any]:
    status, headers, body = call(functions, event)
    assert status == 200, body
    assert response_problems(status, headers, body) == []
    return dict(json.loads(body))


def refused(functions: FakeFunctions, event: dict[str, Any]) -> tuple[int, str, str]:
    status, headers, body = call(functions, event)
    code, message = error_code(status, headers, body)
    return status, code, message


def test_a_claimed_knowledge_base_answers_botocore_s_shape_with_our_metadata(
    functions: FakeFunctions,
) -> None:
    answer = ok(
        functions,
        kb_event(
            "acme", QUERY | {"retrievalConfiguration": {"vectorSearchConfiguration": {"numberOfResults": 1}}}
        ),
    )
    (result,) = answer["retrievalResults"]
    assert result["metadata"]["x-retrieval-id"].startswith("acme:")
    assert result["location"] == {
        "type": "CUSTOM",
        "customDocumentLocation": {"id": result["metadata"]["x-retrieval-id"]},
    }
    assert (
        result["content"] == {"type": "TEXT", "text": result["content"]["text"]}
        and "Alice" in result["content"]["text"]
    )
    assert set(result["metadata"]["x-retrieval-signals"]) <= {"lexical", "vector"}
    assert "nextToken" not in answer  # the fakes' container has no paging key (tests/integration pages)


def test_semantic_is_vector_hybrid_is_hybrid_and_absent_is_the_deployment_s_default(
    functions: FakeFunctions, capsys: pytest.CaptureFixture[str]
) -> None:
    for search, mode in (("SEMANTIC", "vector"), ("HYBRID", "hybrid"), (None, "hybrid")):
        config = {"overrideSearchType": search} if search else {}
        body = QUERY | {"retrievalConfiguration": {"vectorSearchConfiguration": config}}
        capsys.readouterr()
        results = ok(functions, kb_event("acme", body))["retrievalResults"]
        assert f'"Retrieve_{mode}":[1.0]' in capsys.readouterr().out
        arms = {"vector"} if mode == "vector" else {"lexical", "vector"}
        assert all(set(r["metadata"]["x-retrieval-signals"]) <= arms for r in results)


def test_a_token_whose_ranking_is_gone_is_resource_not_found(functions: FakeFunctions) -> None:
    # Without a paging key no token can still be good: the same answer as an expired one.
    status, code, message = refused(functions, kb_event("acme", QUERY | {"nextToken": "p1.gone"}))
    assert (status, code) == (404, "ResourceNotFoundException") and "expired" in message


@pytest.mark.parametrize(
    "event",
    [
        kb_event("globex", QUERY),  # another context that exists
        kb_event("nosuch", QUERY),  # one that does not
        kb_event("Not-A-Context!", QUERY),
        kb_event("acme", QUERY, claims=None),  # neither claims nor an IAM identity
        kb_event("acme", QUERY, claims="globex"),
        kb_event("acme", QUERY, headers={"X-Context-Id": "acme"}, claims="globex"),
    ],
)
def test_every_refusal_of_access_is_one_and_the_same(functions: FakeFunctions, event: dict[str, Any]) -> None:
    assert refused(functions, event) == (
        403,
        "AccessDeniedException",
        "You are not authorized to retrieve from this knowledge base.",
    )


def test_an_iam_identity_is_granted_the_path_s_knowledge_base(functions: FakeFunctions) -> None:
    event = kb_event("globex", QUERY, claims=None, iam_user="arn:aws:iam::1:user/g")
    assert {
        r["metadata"]["x-retrieval-id"].split(":")[0] for r in ok(functions, event)["retrievalResults"]
    } == {"globex"}


def test_claims_listing_several_contexts_pick_the_knowledge_base(functions: FakeFunctions) -> None:
    answer = ok(functions, kb_event("globex", QUERY, claims="acme,globex"))
    assert {r["metadata"]["x-retrieval-id"].split(":")[0] for r in answer["retrievalResults"]} == {"globex"}


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"numberOfResults": 101}, "numberOfResults"),
        ({"numberOfResults": True}, "numberOfResults"),
        ({"overrideSearchType": "KEYWORD"}, "overrideSearchType"),
        ({"rerankingConfiguration": {"type": "BEDROCK_RERANKING_MODEL"}}, "has no rerank model"),
        ({"implicitFilterConfiguration": {"modelArn": "m", "metadataAttributes": []}}, "implicit"),
        ({"filter": {"near": {"key": "a", "value": 1}}}, "unsupported filter operator 'near'"),
        (
            {"filter": {"andAll": [{"equals": {"key": "a", "value": "b"}}]}},
            "filter.andAll: a list of at least 2",
        ),
        (
            {"filter": {"equals": {"key": "x-retrieval-id", "value": "b"}}},
            "'x-retrieval-id' cannot be filtered",
        ),
        (
            {"filter": {"greaterThan": {"key": "team", "value": 3}}},
            "filter.greaterThan: cannot filter 'team'",
        ),
        ({"filter": {"greaterThan": {"key": "x-retrieval-kind", "value": 3}}}, "filter.greaterThan.key"),
        ({"filter": {"in": {"key": "team", "value": []}}}, "filter.in.value"),
    ],
)
def test_what_cannot_be_served_is_a_validation_exception_naming_bedrock_s_field(
    functions: FakeFunctions, config: dict[str, Any], field: str
) -> None:
    body = QUERY | {"retrievalConfiguration": {"vectorSearchConfiguration": config}}
    status, code, message = refused(functions, kb_event("acme", body))
    assert (status, code) == (400, "ValidationException")
    assert field in message, message


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (QUERY | {"guardrailConfiguration": {"guardrailId": "g", "guardrailVersion": "1"}}, "guardrails"),
        ({"retrievalQuery": {"text": ""}}, "retrievalQuery.text"),
        ({"retrievalQuery": {"image": {"format": "png", "inlineContent": "aGk="}, "text": "x"}}, "image"),
        (QUERY | {"nextToken": "p1 spaced"}, "nextToken"),
        (QUERY | {"surprise": 1}, "surprise"),
        ({}, "retrievalQuery"),
        ("not json", "not valid JSON"),
        (None, "(body)"),
    ],
)
def test_malformed_requests_are_validation_exceptions(
    functions: FakeFunctions, body: Any, field: str
) -> None:
    status, code, message = refused(functions, kb_event("acme", body))
    assert (status, code) == (400, "ValidationException")
    assert field in message, message


def test_every_bedrock_operator_translates_to_ours_and_validates() -> None:
    leaf = {"key": "team", "value": "payments"}
    bedrock = {
        "orAll": [
            {"andAll": [{"equals": leaf}, {"notEquals": leaf}, {"in": {"key": "team", "value": ["a", "b"]}}]},
            {
                "andAll": [
                    {"notIn": {"key": "team", "value": ["a"]}},
                    {"startsWith": leaf},
                    {"stringContains": leaf},
                ]
            },
            {
                "andAll": [
                    {"listContains": {"key": "x-retrieval-entity-ids", "value": "acme:person/alice"}},
                    {"greaterThan": {"key": "x-retrieval-confidence", "value": 0.1}},
                    {
                        "greaterThanOrEquals": {
                            "key": "x-retrieval-created-at",
                            "value": "2026-01-01T00:00:00Z",
                        }
                    },
                    {"lessThan": {"key": "x-retrieval-confidence", "value": 0.9}},
                    {"lessThanOrEquals": {"key": "x-retrieval-valid-to", "value": "2027-01-01T00:00:00Z"}},
                ]
            },
        ]
    }
    ours = Filter.model_validate(translate_filter(bedrock)).echo()
    assert [next(iter(node)) for node in ours["any_of"][0]["all_of"]] == ["equals", "not_equals", "in"]
    assert [next(iter(node)) for node in ours["any_of"][1]["all_of"]] == [
        "not_in",
        "starts_with",
        "string_contains",
    ]
    assert [next(iter(node)) for node in ours["any_of"][2]["all_of"]] == [
        "list_contains",
        "gt",
        "gte",
        "lt",
        "lte",
    ]
    assert ours["any_of"][0]["all_of"][0] == {"equals": {"key": "metadata.team", "value": "payments"}}
    assert ours["any_of"][2]["all_of"][0]["list_contains"]["key"] == "mentions.entity_id"


def test_a_filter_applies_inside_the_query(functions: FakeFunctions) -> None:
    def ids(filter_: dict[str, Any] | None) -> list[str]:
        config = {} if filter_ is None else {"filter": filter_}
        body = QUERY | {"retrievalConfiguration": {"vectorSearchConfiguration": config}}
        return [
            r["metadata"]["x-retrieval-id"] for r in ok(functions, kb_event("acme", body))["retrievalResults"]
        ]

    by_entity = {"listContains": {"key": "x-retrieval-entity-ids", "value": "acme:person/alice"}}
    unfiltered = ids(None)
    assert unfiltered and ids(by_entity) == unfiltered
    assert ids({"andAll": [by_entity, {"startsWith": {"key": "x-retrieval-source-ids", "value": "x"}}]}) == []
