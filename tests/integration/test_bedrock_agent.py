"""boto3's ``bedrock-agent`` against `retrieval serve` on the real stack: knowledge bases and data sources
(read-only), the document plane (ingest, list, get, delete), ingestion jobs over the S3 prefix, and the
isolation of every operation. Each client only gets an ``endpoint_url`` and the dev credentials
(``dev-<context>`` reads; ``devwrite-<context>`` also writes); every HTTP answer is checked against
botocore's service model (``bedrock_contract``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.client import BaseClient
from botocore.config import Config
from botocore.exceptions import ClientError
from cli_process import serving
from retrieval_core.config import Settings
from retrieval_dev.bedrock_contract import agent_operation, error_code, response_problems
from retrieval_dev.cli.sigv4 import dev_credentials

from dev.sample.knowledge_bases import SAMPLE_KNOWLEDGE_BASES

CONTEXT = "acme"
KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context == CONTEXT)
OTHER_KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context != CONTEXT)
MISSING_KNOWLEDGE_BASE = "NOSUCHKB00"
NO_RETRIES = Config(retries={"max_attempts": 1, "mode": "standard"})
Answer = tuple[int, dict[str, str], bytes, str]


@pytest.fixture(scope="module")
def base_url(corpus_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("serve-bedrock-agent") / "serve.log"
    with serving(["serve"], log, os.environ | corpus_settings.to_env()) as url:
        yield url


class Recorded:
    """A ``bedrock-agent`` client as a user makes it, and every raw HTTP answer it got (with the
    operation's name), for the contract check."""

    def __init__(self, base_url: str, context: str = CONTEXT, *, writer: bool = False) -> None:
        access_key, secret = dev_credentials(context, writer=writer)
        self.client: BaseClient = boto3.client(
            "bedrock-agent",
            endpoint_url=base_url,
            region_name="us-east-1",
            aws_access_key_id=access_key,
            aws_secret_access_key=secret,
            config=NO_RETRIES,
        )
        self.answers: list[Answer] = []

        def keep(http_response: Any, model: Any, **_: Any) -> None:
            self.answers.append(
                (http_response.status_code, dict(http_response.headers), http_response.content, model.name)
            )

        self.client.meta.events.register("after-call.bedrock-agent.*", keep)

    def problems(self) -> list[str]:
        """Every answer so far that botocore's model does not describe (empty when all conform)."""
        found = []
        for status, headers, body, name in self.answers:
            model = agent_operation(name)
            if status < 300:
                found += [f"{name}: {p}" for p in response_problems(status, headers, body, model)]
            else:
                error_code(status, headers, body, model)  # asserts the code is a modelled one
        return found


def refusal(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as raised:
        call(**kwargs)
    error = raised.value.response["Error"]
    return error["Code"], error["Message"]


def test_the_knowledge_base_and_its_two_data_sources_are_described_as_bedrock_s(base_url: str) -> None:
    agent = Recorded(base_url)
    knowledge_base = agent.client.get_knowledge_base(knowledgeBaseId=KNOWLEDGE_BASE)["knowledgeBase"]
    assert knowledge_base["knowledgeBaseId"] == KNOWLEDGE_BASE and knowledge_base["status"] == "ACTIVE"
    assert knowledge_base["knowledgeBaseConfiguration"]["type"] == "VECTOR"
    assert knowledge_base["knowledgeBaseArn"].endswith(f":knowledge-base/{KNOWLEDGE_BASE}")
    listed = agent.client.list_knowledge_bases()["knowledgeBaseSummaries"]
    assert [kb["knowledgeBaseId"] for kb in listed] == [KNOWLEDGE_BASE]  # only the caller's
    sources = agent.client.list_data_sources(knowledgeBaseId=KNOWLEDGE_BASE)["dataSourceSummaries"]
    types = {
        source["dataSourceId"]: agent.client.get_data_source(
            knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=source["dataSourceId"]
        )["dataSource"]["dataSourceConfiguration"]
        for source in sources
    }
    assert [configuration["type"] for configuration in types.values()] == ["CUSTOM", "S3"]
    s3 = next(c for c in types.values() if c["type"] == "S3")["s3Configuration"]
    assert s3["inclusionPrefixes"] == [f"contexts/{CONTEXT}/"]
    assert agent.problems() == [] and len(agent.answers) == 5


def test_another_context_s_knowledge_base_is_refused_as_a_missing_one(base_url: str) -> None:
    agent = Recorded(base_url)
    for knowledge_base_id in (OTHER_KNOWLEDGE_BASE, MISSING_KNOWLEDGE_BASE):
        assert refusal(agent.client.get_knowledge_base, knowledgeBaseId=knowledge_base_id) == refusal(
            agent.client.get_knowledge_base, knowledgeBaseId=MISSING_KNOWLEDGE_BASE
        )
        assert refusal(agent.client.list_data_sources, knowledgeBaseId=knowledge_base_id)[0] == (
            "AccessDeniedException"
        )
    code, _ = refusal(agent.client.get_data_source, knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId="NOSUCHDS00")
    assert code == "ResourceNotFoundException"
    assert agent.problems() == []


def test_creating_or_deleting_a_knowledge_base_is_refused_saying_where_it_is_done(base_url: str) -> None:
    agent = Recorded(base_url)
    code, message = refusal(agent.client.delete_knowledge_base, knowledgeBaseId=KNOWLEDGE_BASE)
    assert code == "ValidationException" and "retrieval knowledge-base create" in message
    code, _ = refusal(
        agent.client.create_data_source,
        knowledgeBaseId=KNOWLEDGE_BASE,
        name="more",
        dataSourceConfiguration={"type": "CUSTOM"},
    )
    assert code == "ValidationException"
    # Still there, unchanged.
    assert (
        agent.client.get_knowledge_base(knowledgeBaseId=KNOWLEDGE_BASE)["knowledgeBase"]["status"] == "ACTIVE"
    )
    assert agent.problems() == []
