"""boto3's ``bedrock-agent`` against `retrieval serve` on the real stack: knowledge bases and data sources
(read-only), the document plane (ingest, list, get, delete), ingestion jobs over the S3 prefix, and the
isolation of every operation. Each client only gets an ``endpoint_url`` and the dev credentials
(``dev-<context>`` reads; ``devwrite-<context>`` also writes); every HTTP answer is checked against
botocore's service model (``bedrock_contract``)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.client import BaseClient
from botocore.config import Config
from botocore.exceptions import ClientError
from cli_process import serving
from retrieval_core.config import Settings
from retrieval_core.knowledge_bases.events import notification
from retrieval_dev.bedrock_contract import agent_operation, error_code, response_problems
from retrieval_dev.cli.sigv4 import dev_credentials

from dev.ingest_resources import ingest_env, scratch_ingest
from dev.sample.knowledge_bases import SAMPLE_KNOWLEDGE_BASES, register_sample_knowledge_bases
from dev.tables import scratch_space
from tests.processes import finished

CONTEXT = "acme"
KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context == CONTEXT)
OTHER_KNOWLEDGE_BASE = next(kb for kb, context in SAMPLE_KNOWLEDGE_BASES.items() if context != CONTEXT)
MISSING_KNOWLEDGE_BASE = "NOSUCHKB00"
NO_RETRIES = Config(retries={"max_attempts": 1, "mode": "standard"})
Answer = tuple[int, dict[str, str], bytes, str]


@dataclass(frozen=True)
class AgentStack:
    url: str
    settings: Settings
    bucket: str


@pytest.fixture(scope="module")
def agent_stack(
    stack_settings: Settings, opensearch: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AgentStack]:
    """`retrieval serve` over tables, indices and an ingest bucket of its own (what these tests write
    stays out of every other test's corpus), the sample's knowledge base ids registered."""
    assert stack_settings.dynamodb_endpoint is not None
    with scratch_space(stack_settings, "kb") as settings, scratch_ingest(stack_settings, "kb") as resources:
        register_sample_knowledge_bases(
            stack_settings.dynamodb_endpoint, settings.knowledge_base_parameter_path, settings.aws_region
        )
        served = settings.model_copy(update={"ingest_bucket": resources.bucket})
        env = os.environ | served.to_env() | ingest_env(stack_settings.dynamodb_endpoint, resources)
        log = tmp_path_factory.mktemp("serve-bedrock-agent") / "serve.log"
        with serving(["serve"], log, env) as url:
            yield AgentStack(url, served, resources.bucket)


@pytest.fixture(scope="module")
def base_url(agent_stack: AgentStack) -> str:
    return agent_stack.url


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


# ------------------------------------------------------------------------------------- documents

TOPICS = ("tides", "volcanoes", "glaciers", "deserts", "reefs")
DOCUMENT_COUNT = 50


def memory_text(number: int) -> str:
    topic = TOPICS[number % len(TOPICS)]
    return (
        f"Field note {number} about {topic}: observer {number} recorded that the {topic} survey "
        f"station {number * 7} measured value {number * 13} on day {number}."
    )


def inline_document(number: int) -> dict[str, Any]:
    return {
        "content": {
            "dataSourceType": "CUSTOM",
            "custom": {
                "customDocumentIdentifier": {"id": f"note-{number:03d}"},
                "sourceType": "IN_LINE",
                "inlineContent": {"type": "TEXT", "textContent": {"data": memory_text(number)}},
            },
        },
        "metadata": {
            "type": "IN_LINE_ATTRIBUTE",
            "inlineAttributes": [
                {"key": "topic", "value": {"type": "STRING", "stringValue": TOPICS[number % len(TOPICS)]}},
                {"key": "number", "value": {"type": "NUMBER", "numberValue": number}},
            ],
        },
    }


def custom_id(number: int) -> dict[str, Any]:
    return {"dataSourceType": "CUSTOM", "custom": {"id": f"note-{number:03d}"}}


def runtime(base_url: str, context: str = CONTEXT) -> BaseClient:
    access_key, secret = dev_credentials(context)
    return boto3.client(
        "bedrock-agent-runtime",
        endpoint_url=base_url,
        region_name="us-east-1",
        aws_access_key_id=access_key,
        aws_secret_access_key=secret,
        config=NO_RETRIES,
    )


@pytest.fixture(scope="module")
def fifty_documents(base_url: str) -> list[dict[str, Any]]:
    """Fifty inline documents with metadata ingested into acme's custom data source, ten a call."""
    writer = Recorded(base_url, writer=True)
    details = []
    for start in range(0, DOCUMENT_COUNT, 10):
        answer = writer.client.ingest_knowledge_base_documents(
            knowledgeBaseId=KNOWLEDGE_BASE,
            dataSourceId=CUSTOM,
            documents=[inline_document(n) for n in range(start, start + 10)],
        )
        details += answer["documentDetails"]
    assert writer.problems() == []
    return details


CUSTOM = "CUSTOMDOCS"


def list_all(agent: Recorded, page_size: int, data_source: str = CUSTOM) -> tuple[list[dict[str, Any]], int]:
    """Every document through ListKnowledgeBaseDocuments, ``page_size`` a page; and the pages read."""
    details, token, pages = [], None, 0
    while True:
        request: dict[str, Any] = {"knowledgeBaseId": KNOWLEDGE_BASE, "dataSourceId": data_source}
        request |= {"maxResults": page_size} | ({"nextToken": token} if token else {})
        answer = agent.client.list_knowledge_base_documents(**request)
        details += answer["documentDetails"]
        pages += 1
        token = answer.get("nextToken")
        if not token:
            return details, pages


def test_fifty_inline_documents_are_indexed_listed_filtered_and_ten_deleted(
    base_url: str, fifty_documents: list[dict[str, Any]]
) -> None:
    assert [d["status"] for d in fifty_documents] == ["INDEXED"] * DOCUMENT_COUNT
    assert [d["identifier"]["custom"]["id"] for d in fifty_documents] == [
        f"note-{n:03d}" for n in range(DOCUMENT_COUNT)
    ]
    reader = Recorded(base_url)
    listed, pages = list_all(reader, page_size=7)
    assert sorted(d["identifier"]["custom"]["id"] for d in listed) == [f"note-{n:03d}" for n in range(50)]
    assert pages >= 8 and {d["status"] for d in listed} == {"INDEXED"}
    # Retrieve filtered by the documents' metadata: only that topic's notes, cited by document id.
    bedrock = runtime(base_url)
    answer = bedrock.retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": "survey station measured value"},
        retrievalConfiguration={
            "vectorSearchConfiguration": {
                "numberOfResults": 20,
                "filter": {"equals": {"key": "topic", "value": "glaciers"}},
            }
        },
    )
    results = answer["retrievalResults"]
    glacier_notes = {f"note-{n:03d}" for n in range(DOCUMENT_COUNT) if TOPICS[n % 5] == "glaciers"}
    assert results and {r["metadata"]["topic"] for r in results} == {"glaciers"}
    assert {r["location"]["customDocumentLocation"]["id"] for r in results} <= glacier_notes
    assert all(r["metadata"]["x-amz-bedrock-kb-data-source-id"] == CUSTOM for r in results)
    ranged = bedrock.retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": "field note"},
        retrievalConfiguration={
            "vectorSearchConfiguration": {
                "numberOfResults": 50,
                "filter": {"lessThan": {"key": "number", "value": 5}},
            }
        },
    )
    assert {r["location"]["customDocumentLocation"]["id"] for r in ranged["retrievalResults"]} == {
        f"note-{n:03d}" for n in range(5)
    }
    # Delete ten: DELETING, then gone from Get, List and Retrieve (their chunks went with them).
    writer = Recorded(base_url, writer=True)
    doomed = list(range(0, DOCUMENT_COUNT, 5))
    deleted = writer.client.delete_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documentIdentifiers=[custom_id(n) for n in doomed],
    )["documentDetails"]
    assert [d["status"] for d in deleted] == ["DELETING"] * 10
    got = reader.client.get_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documentIdentifiers=[custom_id(n) for n in (0, 1)],
    )["documentDetails"]
    assert [d["status"] for d in got] == ["NOT_FOUND", "INDEXED"]
    listed, _ = list_all(reader, page_size=100)
    assert len(listed) == 40 and not {d["identifier"]["custom"]["id"] for d in listed} & {
        f"note-{n:03d}" for n in doomed
    }
    everything = bedrock.retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": memory_text(5)},
        retrievalConfiguration={"vectorSearchConfiguration": {"numberOfResults": 100}},
    )["retrievalResults"]
    cited = {r["location"].get("customDocumentLocation", {}).get("id") for r in everything}
    assert "note-006" in cited and not cited & {f"note-{n:03d}" for n in doomed}
    assert reader.problems() == [] and writer.problems() == []


def test_a_reader_may_not_write_and_a_client_token_runs_once(
    base_url: str, fifty_documents: list[Any]
) -> None:
    reader = Recorded(base_url)
    code, _ = refusal(
        reader.client.ingest_knowledge_base_documents,
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documents=[inline_document(99)],
    )
    assert code == "AccessDeniedException"
    writer = Recorded(base_url, writer=True)
    token = "a" * 40
    first = writer.client.ingest_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documents=[inline_document(98)],
        clientToken=token,
    )["documentDetails"]
    again = writer.client.ingest_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documents=[inline_document(98)],
        clientToken=token,
    )["documentDetails"]
    assert first == again and first[0]["status"] == "INDEXED"  # the same answer, nothing written again
    code, message = refusal(
        writer.client.ingest_knowledge_base_documents,
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=CUSTOM,
        documents=[inline_document(97)],
        clientToken=token,
    )
    assert code == "ValidationException" and "clientToken" in message
    got = writer.client.get_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=CUSTOM, documentIdentifiers=[custom_id(97)]
    )["documentDetails"]
    assert got[0]["status"] == "NOT_FOUND"
    assert reader.problems() == [] and writer.problems() == []


OTHER_CONTEXT = SAMPLE_KNOWLEDGE_BASES[OTHER_KNOWLEDGE_BASE]


def test_no_document_operation_reveals_another_context_s_documents(
    agent_stack: AgentStack, fifty_documents: list[Any]
) -> None:
    """globex's writer, on its own knowledge base, probing acme's document ids, S3 locations and page
    tokens: every answer is the answer for something that does not exist."""
    mine, theirs = (
        Recorded(agent_stack.url, writer=True),
        Recorded(agent_stack.url, OTHER_CONTEXT, writer=True),
    )
    on_theirs = {"knowledgeBaseId": OTHER_KNOWLEDGE_BASE, "dataSourceId": CUSTOM}
    acme_ids = [custom_id(n) for n in (1, 2)]
    missing = [{"dataSourceType": "CUSTOM", "custom": {"id": "never-written"}}] * 2
    probe = theirs.client.get_knowledge_base_documents(**on_theirs, documentIdentifiers=acme_ids)
    control = theirs.client.get_knowledge_base_documents(**on_theirs, documentIdentifiers=missing)
    assert [d["status"] for d in probe["documentDetails"]] == ["NOT_FOUND"] * 2
    assert [{**d, "identifier": None} for d in probe["documentDetails"]] == [
        {**d, "identifier": None} for d in control["documentDetails"]
    ]
    assert theirs.client.list_knowledge_base_documents(**on_theirs)["documentDetails"] == []
    # Deleting acme's ids from globex's knowledge base deletes nothing.
    theirs.client.delete_knowledge_base_documents(**on_theirs, documentIdentifiers=acme_ids)
    still = mine.client.get_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=CUSTOM, documentIdentifiers=acme_ids
    )["documentDetails"]
    assert [d["status"] for d in still] == ["INDEXED"] * 2
    # acme's page token on globex's listing: refused as a made-up one is.
    token = mine.client.list_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=CUSTOM, maxResults=3
    )["nextToken"]
    foreign = refusal(theirs.client.list_knowledge_base_documents, **on_theirs, nextToken=token)
    made_up = refusal(theirs.client.list_knowledge_base_documents, **on_theirs, nextToken="made-up")
    assert foreign == made_up and foreign[0] == "ValidationException"

    # acme's objects as S3 content: the same refusal as a missing object of globex's own prefix.
    def from_s3(context: str) -> dict[str, Any]:
        uri = f"s3://{agent_stack.bucket}/contexts/{context}/bedrock-custom/note-001.txt"
        return {
            "content": {
                "dataSourceType": "CUSTOM",
                "custom": {
                    "customDocumentIdentifier": {"id": "copied"},
                    "sourceType": "S3_LOCATION",
                    "s3Location": {"uri": uri},
                },
            }
        }

    acme_object = refusal(
        theirs.client.ingest_knowledge_base_documents, **on_theirs, documents=[from_s3(CONTEXT)]
    )
    own_missing = refusal(
        theirs.client.ingest_knowledge_base_documents, **on_theirs, documents=[from_s3(OTHER_CONTEXT)]
    )
    assert acme_object[0] == own_missing[0] == "ValidationException"
    assert acme_object[1].replace(CONTEXT, OTHER_CONTEXT) == own_missing[1]
    # acme's knowledge base with globex's keys: the same refusal as one that does not exist.
    for operation, arguments in (
        ("list_knowledge_base_documents", {"dataSourceId": CUSTOM}),
        ("get_knowledge_base_documents", {"dataSourceId": CUSTOM, "documentIdentifiers": acme_ids}),
        ("delete_knowledge_base_documents", {"dataSourceId": CUSTOM, "documentIdentifiers": acme_ids}),
        ("ingest_knowledge_base_documents", {"dataSourceId": CUSTOM, "documents": [inline_document(1)]}),
    ):
        call = getattr(theirs.client, operation)
        assert refusal(call, knowledgeBaseId=KNOWLEDGE_BASE, **arguments) == refusal(
            call, knowledgeBaseId=MISSING_KNOWLEDGE_BASE, **arguments
        )
    assert mine.problems() == [] and theirs.problems() == []


# -------------------------------------------------------------------------------- ingestion jobs

S3_SOURCE = "S3CONTEXTS"
JOB_FILES = {
    "jobs/alpha.txt": "Alpha station logs the tide at dawn and records the height in meters.",
    "jobs/beta.md": "# Beta\n\nBeta crew maps the glacier front every spring with drones.",
    "jobs/gamma.txt": "Gamma lab studies volcanic ash samples from the northern ridge.",
    "jobs/delta.txt": "Delta team counts reef fish along the eastern transect each week.",
    "jobs/epsilon.md": "# Epsilon\n\nEpsilon measures desert dune migration with GPS stakes.",
    "jobs/zeta.txt": "Zeta archive keeps the field notebooks of every expedition.",
}


def s3_client(agent_stack: AgentStack) -> Any:
    from dev.ingest_resources import aws_client

    assert agent_stack.settings.dynamodb_endpoint is not None
    return aws_client("s3", agent_stack.settings.dynamodb_endpoint)


def put(agent_stack: AgentStack, relative: str, body: str) -> None:
    s3_client(agent_stack).put_object(
        Bucket=agent_stack.bucket, Key=f"contexts/{CONTEXT}/{relative}", Body=body.encode()
    )


def finished_job(agent: Recorded, job_id: str) -> dict[str, Any]:
    """GetIngestionJob polled until the job is done (at most a minute: the test fails, not hangs)."""
    deadline = time.monotonic() + 60
    while True:
        job = agent.client.get_ingestion_job(
            knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, ingestionJobId=job_id
        )["ingestionJob"]
        if job["status"] not in {"STARTING", "IN_PROGRESS", "STOPPING"} or time.monotonic() > deadline:
            return dict(job)
        time.sleep(0.2)


def ledger_statistics(statuses: dict[str, dict[str, Any]], keys: set[str]) -> dict[str, int]:
    """What the file statuses of ``keys`` say a job did, by the rule the job counts with."""
    counts = dict.fromkeys(["indexed", "updated", "metadata", "deleted", "skipped", "failed"], 0)
    for key in keys:
        status = statuses[key]
        if status["status"] == "updated" and (status.get("reason") or "").startswith("metadata only"):
            counts["metadata"] += 1
        elif status["status"] in counts:
            counts[status["status"]] += 1
    return {
        "numberOfNewDocumentsIndexed": counts["indexed"],
        "numberOfModifiedDocumentsIndexed": counts["updated"],
        "numberOfMetadataDocumentsModified": counts["metadata"],
        "numberOfDocumentsDeleted": counts["deleted"],
        "numberOfDocumentsSkipped": counts["skipped"],
        "numberOfDocumentsFailed": counts["failed"],
    }


def file_statuses(agent_stack: AgentStack, prefix: str = "jobs/") -> dict[str, dict[str, Any]]:
    """The context's file statuses under ``prefix`` as `GET /v1/documents` lists them (the ledger)."""
    from retrieval_core.adapters.dynamodb_client import dynamodb_client
    from retrieval_core.adapters.dynamodb_documents import DynamoDocumentStatuses

    store = DynamoDocumentStatuses(
        dynamodb_client(agent_stack.settings), agent_stack.settings.documents_table
    )
    page = store.page(CONTEXT, prefix, limit=100, after=None)
    return {status.key: status.model_dump() for status in page.documents}


def test_an_ingestion_job_syncs_the_prefix_and_its_statistics_match_the_ledger(
    agent_stack: AgentStack,
) -> None:
    writer = Recorded(agent_stack.url, writer=True)
    for relative, text in JOB_FILES.items():
        put(agent_stack, relative, text)
    put(agent_stack, "jobs/alpha.txt.metadata.json", '{"metadataAttributes": {"station": "alpha"}}')
    started = writer.client.start_ingestion_job(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, description="first sync"
    )["ingestionJob"]
    assert started["status"] in {"STARTING", "IN_PROGRESS", "COMPLETE"}
    first = finished_job(writer, started["ingestionJobId"])
    assert first["status"] == "COMPLETE", first
    statistics = first["statistics"]
    assert statistics["numberOfDocumentsScanned"] == 6 and statistics["numberOfMetadataDocumentsScanned"] == 1
    ledger = file_statuses(agent_stack)
    assert {k: v for k, v in statistics.items() if k in ledger_statistics(ledger, set(ledger))} == (
        ledger_statistics(ledger, set(ledger))
    )
    assert statistics["numberOfNewDocumentsIndexed"] == 6
    # Change the folder: one file's text, another's sidecar alone, one removed, one added, one skipped.
    put(agent_stack, "jobs/beta.md", "# Beta\n\nBeta crew now maps the glacier front every autumn.")
    put(agent_stack, "jobs/alpha.txt.metadata.json", '{"metadataAttributes": {"station": "alpha-2"}}')
    s3_client(agent_stack).delete_object(Bucket=agent_stack.bucket, Key=f"contexts/{CONTEXT}/jobs/gamma.txt")
    put(agent_stack, "jobs/eta.txt", "Eta station watches the northern lights from the tundra.")
    put(agent_stack, "jobs/photo.png", "not really a picture")
    second_id = writer.client.start_ingestion_job(knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)[
        "ingestionJob"
    ]["ingestionJobId"]
    second = finished_job(writer, second_id)
    assert second["status"] == "COMPLETE", second
    ledger = file_statuses(agent_stack)
    changed = {"jobs/beta.md", "jobs/alpha.txt", "jobs/gamma.txt", "jobs/eta.txt", "jobs/photo.png"}
    expected = ledger_statistics(ledger, changed)
    assert {k: second["statistics"][k] for k in expected} == expected
    assert expected == {
        "numberOfNewDocumentsIndexed": 1,
        "numberOfModifiedDocumentsIndexed": 1,
        "numberOfMetadataDocumentsModified": 1,
        "numberOfDocumentsDeleted": 1,
        "numberOfDocumentsSkipped": 1,
        "numberOfDocumentsFailed": 0,
    }
    assert second["statistics"]["numberOfDocumentsScanned"] == 7
    # The S3 data source lists the prefix's files as documents; the custom notes are not among them.
    listed, _ = list_all(writer, page_size=4, data_source=S3_SOURCE)
    uris = {d["identifier"]["s3"]["uri"] for d in listed}
    prefix = f"s3://{agent_stack.bucket}/contexts/{CONTEXT}/"
    assert {f"{prefix}{key}" for key in set(JOB_FILES) - {"jobs/gamma.txt"} | {"jobs/eta.txt"}} <= uris
    assert f"{prefix}jobs/gamma.txt" not in uris and not any("bedrock-custom" in uri for uri in uris)
    # The jobs, newest first; a finished job cannot be stopped.
    summaries = writer.client.list_ingestion_jobs(knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)[
        "ingestionJobSummaries"
    ]
    assert [s["ingestionJobId"] for s in summaries][:2] == [second_id, started["ingestionJobId"]]
    code, _ = refusal(
        writer.client.stop_ingestion_job,
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=S3_SOURCE,
        ingestionJobId=second_id,
    )
    assert code == "ConflictException"
    assert writer.problems() == []


def test_no_job_operation_reveals_another_context_s_jobs(agent_stack: AgentStack) -> None:
    mine, theirs = (
        Recorded(agent_stack.url, writer=True),
        Recorded(agent_stack.url, OTHER_CONTEXT, writer=True),
    )
    job_id = mine.client.start_ingestion_job(knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)[
        "ingestionJob"
    ]["ingestionJobId"]
    finished_job(mine, job_id)
    for _ in range(2):  # two, so that a page of one has a nextToken
        other = mine.client.start_ingestion_job(knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)
        finished_job(mine, other["ingestionJob"]["ingestionJobId"])
    on_theirs = {"knowledgeBaseId": OTHER_KNOWLEDGE_BASE, "dataSourceId": S3_SOURCE}
    for call in (theirs.client.get_ingestion_job, theirs.client.stop_ingestion_job):
        assert refusal(call, **on_theirs, ingestionJobId=job_id) == refusal(
            call, **on_theirs, ingestionJobId="NOSUCHJOB0"
        )
        assert refusal(call, **on_theirs, ingestionJobId=job_id)[0] == "ResourceNotFoundException"
    assert theirs.client.list_ingestion_jobs(**on_theirs)["ingestionJobSummaries"] == []
    token = mine.client.list_ingestion_jobs(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, maxResults=1
    )["nextToken"]
    assert refusal(theirs.client.list_ingestion_jobs, **on_theirs, nextToken=token) == refusal(
        theirs.client.list_ingestion_jobs, **on_theirs, nextToken="made-up"
    )
    for operation, arguments in (
        ("get_ingestion_job", {"ingestionJobId": job_id}),
        ("stop_ingestion_job", {"ingestionJobId": job_id}),
        ("list_ingestion_jobs", {}),
        ("start_ingestion_job", {}),
    ):
        call = getattr(theirs.client, operation)
        assert refusal(call, knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, **arguments) == refusal(
            call, knowledgeBaseId=MISSING_KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, **arguments
        )
    # A reader may look but not start.
    reader = Recorded(agent_stack.url)
    assert reader.client.get_ingestion_job(
        knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE, ingestionJobId=job_id
    )
    assert refusal(reader.client.start_ingestion_job, knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)[
        0
    ] == ("AccessDeniedException")
    assert mine.problems() == [] and theirs.problems() == [] and reader.problems() == []


def test_an_s3_document_is_indexed_where_it_is_with_its_sidecar_and_not_deleted_through_the_api(
    agent_stack: AgentStack,
) -> None:
    """What Strands' store does with an S3 data source: the object and its sidecar put under the prefix,
    then IngestKnowledgeBaseDocuments names both."""
    writer = Recorded(agent_stack.url, writer=True)
    put(agent_stack, "s3docs/harbor.txt", "The harbor master logs every ferry departure in a red ledger.")
    put(agent_stack, "s3docs/harbor.txt.metadata.json", '{"metadataAttributes": {"desk": "harbor"}}')
    uri = f"s3://{agent_stack.bucket}/contexts/{CONTEXT}/s3docs/harbor.txt"
    details = writer.client.ingest_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=S3_SOURCE,
        documents=[
            {
                "content": {"dataSourceType": "S3", "s3": {"s3Location": {"uri": uri}}},
                "metadata": {"type": "S3_LOCATION", "s3Location": {"uri": f"{uri}.metadata.json"}},
            }
        ],
    )["documentDetails"]
    assert [(d["status"], d["identifier"]) for d in details] == [
        ("INDEXED", {"dataSourceType": "S3", "s3": {"uri": uri}})
    ]
    found = runtime(agent_stack.url).retrieve(
        knowledgeBaseId=KNOWLEDGE_BASE,
        retrievalQuery={"text": "ferry departure ledger"},
        retrievalConfiguration={
            "vectorSearchConfiguration": {"filter": {"equals": {"key": "desk", "value": "harbor"}}}
        },
    )["retrievalResults"]
    assert [r["location"] for r in found] == [{"type": "S3", "s3Location": {"uri": uri}}]
    # The result names its data source by the id ListDataSources gives the S3 one (not the bucket).
    sources = writer.client.list_data_sources(knowledgeBaseId=KNOWLEDGE_BASE)["dataSourceSummaries"]
    s3_sources = [s["dataSourceId"] for s in sources if s["name"] == "s3-prefix"]
    assert [r["metadata"]["x-amz-bedrock-kb-data-source-id"] for r in found] == s3_sources
    code, message = refusal(
        writer.client.delete_knowledge_base_documents,
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=S3_SOURCE,
        documentIdentifiers=[{"dataSourceType": "S3", "s3": {"uri": uri}}],
    )
    assert code == "ValidationException" and "deleting its object" in message
    assert writer.problems() == []


def test_json_lines_under_the_prefix_are_no_documents_of_the_s3_data_source(
    agent_stack: AgentStack, tmp_path: Path
) -> None:
    """A JSON Lines object the ingest function loaded keeps a record in the same ledger as the files
    (docs/DOCUMENTS.md), but holds items, not a document Bedrock would index: the S3 data source does not
    list it and Get answers it as missing (both did answer it as an INDEXED document before), and a job
    neither scans it nor counts its removal as a document's (that held already: the pipeline's removal
    leaves a JSON Lines key alone)."""
    writer = Recorded(agent_stack.url, writer=True)
    dimension = agent_stack.settings.embedding_dimension
    lines = [
        json.dumps(
            {
                "id": f"{CONTEXT}:lines-{number}",
                "context_id": CONTEXT,
                "kind": "proposition",
                "text": f"Lighthouse keeper note {number} about the foghorn.",
                "created_at": "2026-01-01T00:00:00Z",
                "embedding": [((number * 7 + i) % 13) / 13 + 0.01 for i in range(dimension)],
            }
        )
        for number in range(3)
    ]
    put(agent_stack, "lines/notes.jsonl", "\n".join(lines) + "\n")
    event = tmp_path / "created.json"
    event.write_text(
        json.dumps(
            notification(
                agent_stack.bucket,
                agent_stack.settings.aws_region,
                CONTEXT,
                ["lines/notes.jsonl"],
                removed=False,
            )
        )
    )
    assert agent_stack.settings.dynamodb_endpoint is not None
    env = os.environ | agent_stack.settings.to_env() | {"RETRIEVAL_INGEST_QUEUE_URL": ""}
    env |= {"AWS_ENDPOINT_URL_S3": agent_stack.settings.dynamodb_endpoint}
    done = finished(
        [str(Path(sys.executable).with_name("retrieval")), "invoke", "ingest", str(event)], env=env
    )
    assert json.loads(done.stdout)["statusCode"] == 200, done.stdout
    records = file_statuses(agent_stack, "lines/")
    assert (records["lines/notes.jsonl"]["status"], records["lines/notes.jsonl"]["chunks"]) == ("indexed", 3)
    uri = f"s3://{agent_stack.bucket}/contexts/{CONTEXT}/lines/notes.jsonl"
    listed, _ = list_all(writer, page_size=100, data_source=S3_SOURCE)
    assert uri not in {d["identifier"]["s3"]["uri"] for d in listed}
    got = writer.client.get_knowledge_base_documents(
        knowledgeBaseId=KNOWLEDGE_BASE,
        dataSourceId=S3_SOURCE,
        documentIdentifiers=[{"dataSourceType": "S3", "s3": {"uri": uri}}],
    )["documentDetails"]
    assert [d["status"] for d in got] == ["NOT_FOUND"]
    # The object removed: a job finds no document gone, and leaves the record to the ingest function.
    s3_client(agent_stack).delete_object(
        Bucket=agent_stack.bucket, Key=f"contexts/{CONTEXT}/lines/notes.jsonl"
    )
    job_id = writer.client.start_ingestion_job(knowledgeBaseId=KNOWLEDGE_BASE, dataSourceId=S3_SOURCE)[
        "ingestionJob"
    ]["ingestionJobId"]
    job = finished_job(writer, job_id)
    assert job["status"] == "COMPLETE", job
    assert job["statistics"]["numberOfDocumentsDeleted"] == 0, job["statistics"]
    assert file_statuses(agent_stack, "lines/")["lines/notes.jsonl"]["status"] == "indexed"
    assert writer.problems() == []
