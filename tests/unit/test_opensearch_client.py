"""The OpenSearch client: SigV4 (opensearch-py urllib3 signer) in AWS, plain locally, one per container."""

from __future__ import annotations

import pytest
from opensearchpy import Urllib3AWSV4SignerAuth
from retrieval_core.adapters.opensearch.client import build_client, shared_client
from retrieval_core.config import Settings

DOMAIN = "search-retrieval.us-east-1.es.amazonaws.com"


@pytest.mark.parametrize(("auth", "service"), [("sigv4-es", "es"), ("sigv4-aoss", "aoss")])
def test_aws_endpoints_are_sigv4_signed(monkeypatch: pytest.MonkeyPatch, auth: str, service: str) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    settings = Settings(opensearch_endpoint=f"https://{DOMAIN}", opensearch_auth=auth, aws_region="eu-west-1")
    connection = build_client(settings).transport.get_connection()
    assert isinstance(connection.http_auth, Urllib3AWSV4SignerAuth)
    assert connection.http_auth.service == service
    assert connection.http_auth.signer.region == "eu-west-1"
    assert (connection.use_ssl, connection.hostname, connection.port) == (True, DOMAIN, 443)


def test_the_local_stack_is_unsigned_and_the_client_is_reused() -> None:
    settings = Settings(opensearch_endpoint="http://127.0.0.1:9200")
    connection = build_client(settings).transport.get_connection()
    assert connection.http_auth is None
    assert (connection.use_ssl, connection.port) == (False, 9200)
    assert shared_client(settings) is shared_client(settings)
