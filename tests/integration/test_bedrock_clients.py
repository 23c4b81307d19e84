"""Unmodified third-party Bedrock Knowledge Bases clients against `retrieval serve` on the real stack:
boto3's ``bedrock-agent-runtime`` (retrieve, every filter operator, paging to the end, every error code as
botocore raises it) and langchain-aws' ``AmazonKnowledgeBasesRetriever``. Each client only gets an
``endpoint_url`` and the dev credentials ``dev-<context>`` / ``dev-secret``; every HTTP answer is checked
against botocore's service model.

Each knowledge base is the sample's id of its context (``dev/sample/knowledge_bases.py``), or its ARN.
LlamaIndex's ``llama-index-retrievers-bedrock`` runs in ``make test-latest-clients`` instead
(``tests/latest_clients``): its aioboto3 pins a botocore older than ours.

Most tests use `retrieval serve` as a process. The errors that need a server state a client cannot cause
(an expired token, a backend down, a spent session budget) use the same server code in this process,
where the clock and the container can be swapped.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.request import Request, urlopen

import boto3
import pytest
from botocore import UNSIGNED
from botocore.client import BaseClient
from botocore.config import Config
from botocore.exceptions import ClientError
from cli_process import serving
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.bedrock_contract import error_code, response_problems
from retrieval_dev.cli.sigv4 import dev_credentials
from retrieval_dev.serving.gateway import Gateway
from retrieval_dev.serving.server import ServeLimits, running_in_thread

from dev.sample import known
from dev.sample.knowledge_bases import SAMPLE_KNOWLEDGE_BASES

CONTEXT = "acme"
KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context == CONTEXT)
OTHER_KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context != CONTEXT)
ARN = f"arn:aws:bedrock:us-east-1:123456789012:knowledge-base/{KNOWLEDGE_BASE}"
TEXT = next(q for q in known.LEXICAL_QUERIES if q.context == CONTEXT).text
NO_RETRIES = Config(retries={"max_attempts": 1, "mode": "standard"})
Answer = tuple[int, dict[str, str], bytes]


@pytest.fixture(scope="module")
def base_url(corpus_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("serve-bedrock") / "serve.log"
    with serving(["serve"], log, os.environ | corpus_settings.to_env()) as url:
        yield url


def client(
    base_url: str,
    context: str = CONTEXT,
    *,
    secret: str | None = None,
    config: Config = NO_RETRIES,
    answers: list[Answer] | None = None,
) -> BaseClient:
    """boto3's client as a user makes it, with our endpoint and dev credentials; ``answers`` collects
    every raw HTTP answer (botocore's ``after-call`` event) for the contract check."""
    access_key, dev_secret = dev_credentials(context)
    made = boto3.client(
        "bedrock-agent-runtime",
        endpoint_url=base_url,
        region_name="us-east-1",
        aws_access_key_id=access_key,
        aws_secret_access_key=secret or dev_secret,
        config=config,
    )
    if answers is not None:

        def keep(http_response: Any, **_: Any) -> None:
            answers.append((http_response.status_code, dict(http_response.headers), http_response.content))

        made.meta.events.register("after-call.bedrock-agent-runtime.Retrieve", keep)
    return made


def configured(**search: Any) -> dict[str, Any]:
    return {"retrievalConfiguration": {"vectorSearchConfiguration": search}}


def ids(answer: dict[str, Any]) -> list[str]:
    return [result["metadata"]["x-retrieval-id"] for result in answer["retrievalResults"]]


def native_ids(base_url: str, body: dict[str, Any]) -> list[str]:
    """The ids of the same question's hits through ``POST /v1/retrieve``."""
    return [hit["id"] for hit in native_hits(base_url, body)]


def native_hits(base_url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The same question through ``POST /v1/retrieve`` with a dev token, in the ranking's order as the
    Bedrock route asks for it (``diversify`` false unless ``body`` says otherwise)."""
    request = Request(
        f"{base_url}/v1/retrieve",
        data=json.dumps({"diversify": False} | body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer dev:{CONTEXT}"},
    )
    with urlopen(request, timeout=60) as response:
        return list(json.loads(response.read())["hits"])


def test_retrieve_answers_botocore_s_shape_with_our_metadata_and_locations(base_url: str) -> None:
    answers: list[Answer] = []
    bedrock = client(base_url, answers=answers)
    answer = bedrock.retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}, **configured(numberOfResults=20)
    )
    results = answer["retrievalResults"]
    assert len(results) == 20 and answer["nextToken"]
    assert [response_problems(*raw) for raw in answers] == [[]]
    native = native_hits(base_url, {"mode": "hybrid", "text": TEXT, "top_k": 20})
    assert ids(answer) == [hit["id"] for hit in native]
    # The S3 location is the one /v1/retrieve cites (a grounding span's, else metadata.uri).
    for result, hit in zip(results, native, strict=True):
        cited = (hit["location"] or {}).get("uri") or ""
        if cited.startswith("s3://"):
            assert result["location"] == {"type": "S3", "s3Location": {"uri": cited}}
    for result in results:
        metadata = result["metadata"]
        assert metadata["x-retrieval-id"].startswith(f"{CONTEXT}:") and result["content"]["type"] == "TEXT"
        assert (
            set(metadata["x-retrieval-signals"]) <= {"lexical", "vector"}
            and metadata["x-retrieval-status"] == "ACTIVE"
        )
        location = result["location"]
        if location["type"] == "S3":
            assert location["s3Location"]["uri"].startswith("s3://")
            assert metadata["x-amz-bedrock-kb-source-uri"] == location["s3Location"]["uri"]
        else:
            assert location == {
                "type": "CUSTOM",
                "customDocumentLocation": {"id": metadata["x-retrieval-id"]},
            }
    assert {result["location"]["type"] for result in results} == {"S3", "CUSTOM"}


@pytest.mark.parametrize(
    ("search_type", "mode"), [("SEMANTIC", "vector"), ("HYBRID", "hybrid"), (None, "hybrid")]
)
def test_the_search_type_picks_our_mode(base_url: str, search_type: str | None, mode: str) -> None:
    search = {"numberOfResults": 7} | ({"overrideSearchType": search_type} if search_type else {})
    answer = client(base_url).retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}, **configured(**search)
    )
    assert ids(answer) == native_ids(base_url, {"mode": mode, "text": TEXT, "top_k": 7})


@pytest.mark.parametrize(("search_type", "mode"), [("HYBRID", "hybrid"), ("SEMANTIC", "vector")])
def test_scores_are_the_hits_relevance_in_0_1_never_rising(
    base_url: str, search_type: str, mode: str
) -> None:
    answer = client(base_url).retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": TEXT},
        **configured(numberOfResults=30, overrideSearchType=search_type),
    )
    scores = {result["metadata"]["x-retrieval-id"]: result["score"] for result in answer["retrievalResults"]}
    listed = list(scores.values())
    assert len(listed) == 30 and all(0 <= score <= 1 for score in listed)
    assert listed == sorted(listed, reverse=True) and listed[0] > listed[-1]
    # The native answer names the same value beside its ranking score, wherever diversity shows the hit.
    interleaved = native_hits(base_url, {"mode": mode, "text": TEXT, "top_k": 30, "diversify": True})
    assert {hit["id"]: hit["relevance"] for hit in interleaved} == scores
    assert [hit["id"] for hit in interleaved] != ids(answer)  # the sample's kinds interleave
    assert any(hit["score"] != hit["relevance"] for hit in interleaved)


KIND = "x-retrieval-kind"
OPERATOR_CASES: list[tuple[dict[str, Any], dict[str, Any], Callable[[dict[str, Any]], bool]]] = [
    # (Bedrock filter, our filter, what every result's metadata must satisfy)
    (
        {"equals": {"key": KIND, "value": "record"}},
        {"equals": {"key": "kind", "value": "record"}},
        lambda m: m[KIND] == "record",
    ),
    (
        {"notEquals": {"key": KIND, "value": "record"}},
        {"not_equals": {"key": "kind", "value": "record"}},
        lambda m: m[KIND] != "record",
    ),
    (
        {"in": {"key": KIND, "value": ["record", "document"]}},
        {"in": {"key": "kind", "value": ["record", "document"]}},
        lambda m: m[KIND] in {"record", "document"},
    ),
    (
        {"notIn": {"key": KIND, "value": ["record", "document"]}},
        {"not_in": {"key": "kind", "value": ["record", "document"]}},
        lambda m: m[KIND] not in {"record", "document"},
    ),
    (
        {"greaterThan": {"key": "x-retrieval-confidence", "value": 0.9}},
        {"gt": {"key": "confidence", "value": 0.9}},
        lambda m: m["x-retrieval-confidence"] > 0.9,
    ),
    (
        {"greaterThanOrEquals": {"key": "x-retrieval-confidence", "value": 0.9}},
        {"gte": {"key": "confidence", "value": 0.9}},
        lambda m: m["x-retrieval-confidence"] >= 0.9,
    ),
    (
        {"lessThan": {"key": "x-retrieval-confidence", "value": 0.8}},
        {"lt": {"key": "confidence", "value": 0.8}},
        lambda m: m["x-retrieval-confidence"] < 0.8,
    ),
    (
        {"lessThanOrEquals": {"key": "x-retrieval-created-at", "value": "2026-03-01T00:00:00+01:00"}},
        {"lte": {"key": "created_at", "value": "2026-03-01T00:00:00+01:00"}},
        lambda m: m["x-retrieval-created-at"] <= "2026-02-28T23:00:00Z",
    ),
    (
        {"startsWith": {"key": "x-retrieval-source-ids", "value": "acme:rec-"}},
        {"starts_with": {"key": "source_ids", "value": "acme:rec-"}},
        lambda m: any(s.startswith("acme:rec-") for s in m["x-retrieval-source-ids"]),
    ),
    (
        {"stringContains": {"key": "x-retrieval-entity-ids", "value": "alice"}},
        {"string_contains": {"key": "mentions.entity_id", "value": "alice"}},
        lambda m: any("alice" in e for e in m["x-retrieval-entity-ids"]),
    ),
    (
        {"listContains": {"key": "x-retrieval-entity-ids", "value": "acme:team/payments"}},
        {"list_contains": {"key": "mentions.entity_id", "value": "acme:team/payments"}},
        lambda m: "acme:team/payments" in m["x-retrieval-entity-ids"],
    ),
    # Metadata keys (``team`` is the item's metadata.team): the native route's answer is the oracle.
    (
        {"equals": {"key": "team", "value": "payments"}},
        {"equals": {"key": "metadata.team", "value": "payments"}},
        lambda m: True,
    ),
    (
        {
            "andAll": [
                {"equals": {"key": KIND, "value": "proposition"}},
                {"greaterThan": {"key": "x-retrieval-confidence", "value": 0.85}},
            ]
        },
        {
            "all_of": [
                {"equals": {"key": "kind", "value": "proposition"}},
                {"gt": {"key": "confidence", "value": 0.85}},
            ]
        },
        lambda m: m[KIND] == "proposition" and m["x-retrieval-confidence"] > 0.85,
    ),
    (
        {
            "orAll": [
                {"equals": {"key": KIND, "value": "trace"}},
                {"equals": {"key": "system", "value": "hr"}},
            ]
        },
        {
            "any_of": [
                {"equals": {"key": "kind", "value": "trace"}},
                {"equals": {"key": "metadata.system", "value": "hr"}},
            ]
        },
        lambda m: m[KIND] in {"trace", "record"},
    ),
]


@pytest.mark.parametrize(
    ("bedrock_filter", "our_filter", "holds"),
    OPERATOR_CASES,
    ids=lambda c: next(iter(c)) if isinstance(c, dict) else "",
)
def test_every_filter_operator_means_what_ours_means(
    base_url: str,
    bedrock_filter: dict[str, Any],
    our_filter: dict[str, Any],
    holds: Callable[[dict[str, Any]], bool],
) -> None:
    answers: list[Answer] = []
    answer = client(base_url, answers=answers).retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": TEXT},
        **configured(numberOfResults=30, filter=bedrock_filter),
    )
    assert response_problems(*answers[0]) == []
    found = ids(answer)
    assert found, "the case must select something, or it shows nothing"
    assert found == native_ids(base_url, {"mode": "hybrid", "text": TEXT, "top_k": 30, "filter": our_filter})
    assert all(holds(result["metadata"]) for result in answer["retrievalResults"])
    assert len(found) < len(native_ids(base_url, {"mode": "hybrid", "text": TEXT, "top_k": 100})), (
        "it filtered nothing"
    )


def test_paging_with_next_token_reaches_the_end_without_a_repeat(base_url: str) -> None:
    answers: list[Answer] = []
    paginator = client(base_url, answers=answers).get_paginator("retrieve")
    kinds = {"in": {"key": KIND, "value": ["record", "document"]}}
    pages = list(
        paginator.paginate(
            knowledgeBaseId=KNOWLEDGE_BASE,
            retrievalQuery={"text": TEXT},
            **configured(numberOfResults=10, filter=kinds),
        )
    )
    seen = [item for page in pages for item in ids(page)]
    assert len(pages) > 2 and "nextToken" not in pages[-1]
    scores = [result["score"] for page in pages for result in page["retrievalResults"]]
    assert scores == sorted(scores, reverse=True)  # a threshold cuts the whole list once, page after page
    assert len(seen) == len(set(seen)) == 41 + 17  # every record and document of acme, once
    assert all(not response_problems(*raw) for raw in answers) and len(answers) == len(pages)


def test_a_knowledge_base_of_another_context_is_denied_exactly_like_an_unknown_one(base_url: str) -> None:
    answers: list[Answer] = []
    bedrock = client(base_url, answers=answers)
    raised = []
    # The other context's id and its ARN, an id no context is served as, and this one of another region.
    others = (OTHER_KNOWLEDGE_BASE, ARN.replace(KNOWLEDGE_BASE, OTHER_KNOWLEDGE_BASE), "Nosuchkb00")
    for knowledge_base in (*others, ARN.replace("us-east-1", "eu-west-1")):
        with pytest.raises(ClientError) as refused:
            bedrock.retrieve(knowledgeBaseId=knowledge_base, retrievalQuery={"text": TEXT})
        raised.append(refused.value.response["Error"])
    assert all(error == raised[0] for error in raised) and raised[0]["Code"] == "AccessDeniedException"
    assert {status for status, _, _ in answers} == {403} and len({body for _, _, body in answers}) == 1
    assert error_code(*answers[0])[0] == "AccessDeniedException"
    # The same credentials read their own knowledge base.
    assert ids(bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}))


def test_the_knowledge_base_arn_reads_the_same_knowledge_base(base_url: str) -> None:
    answers: list[Answer] = []
    bedrock = client(base_url, answers=answers)
    by_arn = bedrock.retrieve(knowledgeBaseId=ARN, retrievalQuery={"text": TEXT})
    assert ids(by_arn) == ids(bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}))
    assert all(not response_problems(*raw) for raw in answers)


@pytest.mark.parametrize("operation", ["retrieve_and_generate", "retrieve_and_generate_stream"])
def test_generation_is_a_validation_exception_saying_what_to_do(base_url: str, operation: str) -> None:
    bedrock = client(base_url)
    request = {
        "input": {"text": TEXT},
        "retrieveAndGenerateConfiguration": {
            "type": "KNOWLEDGE_BASE",
            "knowledgeBaseConfiguration": {
                "knowledgeBaseId": KNOWLEDGE_BASE,
                "modelArn": "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-micro-v1:0",
            },
        },
    }
    with pytest.raises(bedrock.exceptions.ValidationException) as refused:
        getattr(bedrock, operation)(**request)
    message = refused.value.response["Error"]["Message"]
    assert "This service retrieves; generation is the caller's" in message and "Retrieve" in message


@pytest.mark.parametrize("how", ["wrong secret", "unsigned", "other context's key"])
def test_unsigned_or_wrongly_signed_requests_are_access_denied(base_url: str, how: str) -> None:
    if how == "unsigned":
        bedrock = client(base_url, config=NO_RETRIES.merge(Config(signature_version=UNSIGNED)))
    elif how == "wrong secret":
        bedrock = client(base_url, secret="not-the-secret")
    else:
        bedrock = client(base_url, context="globex")
    with pytest.raises(bedrock.exceptions.AccessDeniedException):
        bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT})


@pytest.mark.parametrize(
    ("request_parts", "names"),
    [
        (configured(numberOfResults=101), "numberOfResults"),
        (
            configured(filter={"greaterThan": {"key": "team", "value": 3}}),
            "filter.greaterThan: cannot filter 'team'",
        ),
        (
            configured(
                rerankingConfiguration={
                    "type": "BEDROCK_RERANKING_MODEL",
                    "bedrockRerankingConfiguration": {
                        "modelConfiguration": {
                            "modelArn": "arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0"
                        }
                    },
                }
            ),
            "this deployment has no rerank model",
        ),
        ({"guardrailConfiguration": {"guardrailId": "abc", "guardrailVersion": "1"}}, "guardrail"),
        ({"nextToken": "p2.forged.token"}, "next_token is not a token"),
    ],
)
def test_what_this_api_cannot_serve_is_a_validation_exception(
    base_url: str, request_parts: dict[str, Any], names: str
) -> None:
    bedrock = client(base_url)
    with pytest.raises(bedrock.exceptions.ValidationException) as refused:
        bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}, **request_parts)
    assert names in refused.value.response["Error"]["Message"]


def test_langchain_s_retriever_returns_documents_with_our_metadata(base_url: str) -> None:
    from langchain_aws import AmazonKnowledgeBasesRetriever
    from pydantic import SecretStr

    access_key, secret = dev_credentials(CONTEXT)
    retriever = AmazonKnowledgeBasesRetriever(
        knowledge_base_id=KNOWLEDGE_BASE,
        region_name="us-east-1",
        endpoint_url=base_url,
        # Explicit keys: this process's default boto3 session may have cached the stack's fake ones.
        # (SecretStr: langchain-aws 1.6.2 builds its client before pydantic coerces a plain str.)
        aws_access_key_id=SecretStr(access_key),
        aws_secret_access_key=SecretStr(secret),
        retrieval_config={"vectorSearchConfiguration": {"numberOfResults": 5}},
    )
    documents = retriever.invoke(TEXT)
    assert len(documents) == 5
    assert [d.metadata["source_metadata"]["x-retrieval-id"] for d in documents] == native_ids(
        base_url, {"mode": "hybrid", "text": TEXT, "top_k": 5}
    )
    for document in documents:
        assert document.page_content and document.metadata["type"] == "TEXT"
        assert document.metadata["location"]["type"] in {"S3", "CUSTOM"}
        assert {"x-retrieval-kind", "x-retrieval-signals", "x-retrieval-source-ids"} <= document.metadata[
            "source_metadata"
        ].keys()


# ------------------------------------------------------------- errors that need a server state


@contextmanager
def in_process_serve(settings: Settings) -> Iterator[str]:
    """`retrieval serve`'s server and handlers on a thread of this process, over ``settings``."""
    gateway = Gateway(ServeLimits())
    with bootstrap.use(bootstrap.Container(settings)), running_in_thread(gateway, gateway.limits) as address:
        yield f"http://{address[0]}:{address[1]}"
    gateway.close()


def with_session(bedrock: BaseClient, session_id: str) -> BaseClient:
    """Send ``X-Retrieval-Session`` (through botocore's event system: the client is unchanged)."""

    def add(request: Any, **_: Any) -> None:
        request.headers["X-Retrieval-Session"] = session_id

    bedrock.meta.events.register("before-sign.bedrock-agent-runtime.Retrieve", add)
    return bedrock


def test_a_token_past_its_lifetime_is_resource_not_found(
    corpus_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with in_process_serve(corpus_settings) as url:
        answers: list[Answer] = []
        bedrock = client(url, answers=answers)
        token = bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT})["nextToken"]
        later = time.time() + corpus_settings.paging_ttl_seconds + 1
        monkeypatch.setattr(time, "time", lambda: later)
        with pytest.raises(bedrock.exceptions.ResourceNotFoundException) as refused:
            bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT}, nextToken=token)
    assert "expired" in refused.value.response["Error"]["Message"]
    assert error_code(*answers[-1])[0] == "ResourceNotFoundException"


def test_a_backend_down_is_throttling_with_retry_after(corpus_settings: Settings) -> None:
    from cli_process import free_port

    down = corpus_settings.model_copy(update={"opensearch_endpoint": f"http://127.0.0.1:{free_port()}"})
    with in_process_serve(down) as url:
        bedrock = client(url)
        with pytest.raises(bedrock.exceptions.ThrottlingException) as refused:
            bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT})
    headers = refused.value.response["ResponseMetadata"]["HTTPHeaders"]
    assert (
        refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
        and int(headers["retry-after"]) >= 1
    )


def test_a_spent_session_budget_is_service_quota_exceeded_and_a_repeat_is_conflict(
    corpus_settings: Settings,
) -> None:
    limited = corpus_settings.model_copy(update={"session_limit": 1})
    with in_process_serve(limited) as url:
        bedrock = with_session(client(url), f"kb-{uuid.uuid4().hex[:8]}")
        first = bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT})
        assert ids(first)
        with pytest.raises(bedrock.exceptions.ConflictException):
            bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT})
        with pytest.raises(bedrock.exceptions.ServiceQuotaExceededException):
            bedrock.retrieve(knowledgeBaseId=KNOWLEDGE_BASE, retrievalQuery={"text": TEXT + " again"})
