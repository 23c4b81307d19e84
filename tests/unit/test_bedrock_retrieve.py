"""Bedrock Knowledge Bases' Retrieve on the retrieve function, in-process over the unit-test fakes: the
request translated into the same service call, the answer in botocore's output shape, every error with a
modelled code, and the knowledge base granted only by claims or IAM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fake_functions import ACME_KB, GLOBEX_KB, FakeFunctions, fake_functions
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
    # Encoded as botocore encodes a label (an ARN's ':' and '/' too); API Gateway hands it over so.
    encoded = quote(knowledge_base, safe="")
    path = f"/knowledgebases/{encoded}/retrieve"
    return {
        "resource": RESOURCE,
        "path": path,
        "httpMethod": "POST",
        "headers": {"Content-Type": "application/json", **(headers or {})},
        "pathParameters": {"knowledgeBaseId": encoded},
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
            ACME_KB, QUERY | {"retrievalConfiguration": {"vectorSearchConfiguration": {"numberOfResults": 1}}}
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
        results = ok(functions, kb_event(ACME_KB, body))["retrievalResults"]
        assert f'"Retrieve_{mode}":[1.0]' in capsys.readouterr().out
        arms = {"vector"} if mode == "vector" else {"lexical", "vector"}
        assert all(set(r["metadata"]["x-retrieval-signals"]) <= arms for r in results)


def test_a_token_whose_ranking_is_gone_is_resource_not_found(functions: FakeFunctions) -> None:
    # Without a paging key no token can still be good: the same answer as an expired one.
    status, code, message = refused(functions, kb_event(ACME_KB, QUERY | {"nextToken": "p1.gone"}))
    assert (status, code) == (404, "ResourceNotFoundException") and "expired" in message


@pytest.mark.parametrize(
    "event",
    [
        kb_event(GLOBEX_KB, QUERY),  # another context that exists
        kb_event("Nosuch0000", QUERY),  # an id of Bedrock's shape no context is served as
        kb_event("nosuch", QUERY),  # not of Bedrock's shape
        kb_event("acme", QUERY),  # a context's own id is not its knowledge base id
        kb_event("Not-A-Context!", QUERY),
        kb_event(f"arn:aws:bedrock:eu-west-1:123456789012:knowledge-base/{ACME_KB}", QUERY),  # another region
        kb_event(f"arn:aws:bedrock:us-east-1:123456789012:knowledge-base/{GLOBEX_KB}", QUERY),
        kb_event(ACME_KB, QUERY, claims=None),  # neither claims nor an IAM identity
        kb_event(ACME_KB, QUERY, claims="globex"),
        kb_event(ACME_KB, QUERY, headers={"X-Context-Id": "acme"}, claims="globex"),
    ],
)
def test_every_refusal_of_access_is_one_and_the_same(functions: FakeFunctions, event: dict[str, Any]) -> None:
    assert refused(functions, event) == (
        403,
        "AccessDeniedException",
        "You are not authorized to retrieve from this knowledge base.",
    )


@pytest.mark.parametrize(
    "reference",
    [
        ACME_KB,
        f"arn:aws:bedrock:us-east-1:123456789012:knowledge-base/{ACME_KB}",
        f"arn:aws-us-gov:bedrock:us-east-1:123456789012:knowledge-base/{ACME_KB}",
    ],
)
def test_the_id_and_its_arn_name_the_context_it_serves(functions: FakeFunctions, reference: str) -> None:
    answer = ok(functions, kb_event(reference, QUERY))
    assert {r["metadata"]["x-retrieval-id"].split(":")[0] for r in answer["retrievalResults"]} == {"acme"}


def test_an_anonymous_caller_is_refused_before_any_lookup(functions: FakeFunctions) -> None:
    directory = functions.container.knowledge_bases
    before = len(directory.lookups)
    assert refused(functions, kb_event(ACME_KB, QUERY, claims=None))[1] == "AccessDeniedException"
    assert len(directory.lookups) == before


@pytest.mark.parametrize("operation", ["retrieveAndGenerate", "retrieveAndGenerateStream"])
def test_generation_is_a_validation_exception_that_says_what_to_do(
    functions: FakeFunctions, operation: str
) -> None:
    event = kb_event(ACME_KB, {"input": {"text": "who leads payments"}})
    event.update(resource=f"/{operation}", path=f"/{operation}", pathParameters=None)
    event["requestContext"]["resourcePath"] = f"/{operation}"
    status, code, message = refused(functions, event)
    assert (status, code) == (400, "ValidationException")
    assert "retrieves" in message and "Retrieve" in message and "model" in message


def test_an_iam_identity_is_granted_the_path_s_knowledge_base(functions: FakeFunctions) -> None:
    event = kb_event(GLOBEX_KB, QUERY, claims=None, iam_user="arn:aws:iam::1:user/g")
    assert {
        r["metadata"]["x-retrieval-id"].split(":")[0] for r in ok(functions, event)["retrievalResults"]
    } == {"globex"}


def test_claims_listing_several_contexts_pick_the_knowledge_base(functions: FakeFunctions) -> None:
    answer = ok(functions, kb_event(GLOBEX_KB, QUERY, claims="acme,globex"))
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
    status, code, message = refused(functions, kb_event(ACME_KB, body))
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
    status, code, message = refused(functions, kb_event(ACME_KB, body))
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
            r["metadata"]["x-retrieval-id"]
            for r in ok(functions, kb_event(ACME_KB, body))["retrievalResults"]
        ]

    by_entity = {"listContains": {"key": "x-retrieval-entity-ids", "value": "acme:person/alice"}}
    unfiltered = ids(None)
    assert unfiltered and ids(by_entity) == unfiltered
    assert ids({"andAll": [by_entity, {"startsWith": {"key": "x-retrieval-source-ids", "value": "x"}}]}) == []


@pytest.mark.parametrize(
    ("grounding", "metadata", "location"),
    [
        # Only metadata.uri: /v1/retrieve's location.uri, so Bedrock's S3 location too.
        ([], {"uri": "s3://acme-docs/plain.md"}, ("S3", "s3://acme-docs/plain.md")),
        # A grounding span with a URI comes first, as on /v1/retrieve.
        (
            [{"chunk_id": "acme:c", "uri": "s3://acme-docs/g.md"}],
            {"uri": "s3://acme-docs/m.md"},
            ("S3", "s3://acme-docs/g.md"),
        ),
        # A location outside S3 is no S3 location; a later s3:// grounding still is.
        ([{"uri": "jira://acme/AI-1"}, {"uri": "s3://acme-docs/t.md"}], {}, ("S3", "s3://acme-docs/t.md")),
        ([], {"uri": "https://wiki.acme/x"}, ("CUSTOM", None)),
    ],
)
def test_the_s3_location_is_the_one_v1_cites(
    grounding: list[dict[str, Any]], metadata: dict[str, Any], location: tuple[str, str | None]
) -> None:
    from retrieval_core.entrypoints.bedrock.answers import retrieval_result
    from retrieval_core.models.hits import Hit, Provenance, location_of

    hit = Hit(
        id="acme:doc-9",
        kind="document",
        text="t",
        score=1.0,
        status="ACTIVE",
        created_at="2026-01-01T00:00:00Z",
        metadata=metadata,
        provenance=Provenance(grounding_uris=[span["uri"] for span in grounding]),
        location=location_of(grounding, metadata),
    )
    result = retrieval_result(hit).model_dump(exclude_none=True)
    kind, uri = location
    assert result["location"]["type"] == kind
    assert result["location"].get("s3Location", {}).get("uri") == uri
    assert result["metadata"].get("x-amz-bedrock-kb-source-uri") == uri
