"""`make test-latest-clients`: third-party clients at their newest releases, each in its own environment
(their pins cannot share one), against a `retrieval serve` the target started over the sample corpus.

These tests import nothing of the repository: the environment they run in holds the client under test
and pytest only. Without the server they fail, saying how to run them.
"""

from __future__ import annotations

import os

import pytest

KNOWLEDGE_BASES = {"acme": "ACMEKB0001", "globex": "GLOBEXKB01"}
"""The sample's knowledge base ids (dev/sample/knowledge_bases.py), as `make up` registers them."""
QUESTION = "who leads the payments team"


@pytest.fixture(scope="session")
def serve_url() -> str:
    url = os.environ.get("RETRIEVAL_SERVE_URL")
    if not url:
        pytest.fail(
            "RETRIEVAL_SERVE_URL is not set: run these with `make test-latest-clients`", pytrace=False
        )
    return url


@pytest.fixture
def dev_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev credentials `retrieval serve` grants acme (access key dev-acme, secret dev-secret)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "dev-acme")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "dev-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
