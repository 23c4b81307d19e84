"""The file records a ledger writes (the ingest's, the loader's) go through the loader's DynamoDB client:
no caller waits on them, so a slow answer is waited out. The request path's client (two-second attempts,
three of them) failed 32 files of a 50,000-file sync on one pause of the dev stack's moto. The listing
and the Bedrock KB document plane keep the request path's client, bound to the request's deadline."""

from __future__ import annotations

from fakes_documents import MemoryDocumentStatuses
from retrieval_core.adapters.dynamodb_client import dynamodb_client, dynamodb_load_client
from retrieval_core.bootstrap import Container
from retrieval_core.config import Settings

UNREACHABLE = Settings(opensearch_endpoint="http://127.0.0.1:9", dynamodb_endpoint="http://127.0.0.1:9")


def test_the_ledgers_write_on_the_load_client_and_the_request_path_keeps_its_own() -> None:
    deployment = Container(UNREACHABLE)
    assert deployment.ledger_statuses._client is dynamodb_load_client(UNREACHABLE)  # type: ignore[attr-defined]
    assert deployment.document_statuses._client is dynamodb_client(UNREACHABLE)  # type: ignore[attr-defined]
    load_attempts = dynamodb_load_client(UNREACHABLE).meta.config.retries["total_max_attempts"]
    assert load_attempts > dynamodb_client(UNREACHABLE).meta.config.retries["total_max_attempts"]


def test_a_replaced_statuses_store_serves_the_ledgers_too() -> None:
    fake = MemoryDocumentStatuses()
    deployment = Container(UNREACHABLE, overrides={"document_statuses": fake})
    assert deployment.ledger_statuses is fake  # the in-process ingest tests' fakes see every record
