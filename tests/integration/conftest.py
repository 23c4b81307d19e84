"""Fixtures for tests against the real local stack (``make up``): an OpenSearch node and moto DynamoDB.

Every test in this folder is marked ``integration``. If the stack does not answer, the tests fail with
a message saying how to start it; they are never skipped, so a missing stack cannot pass as green.

Contract other tests rely on:
- ``stack_settings`` (session): Settings pointing at the stack; fake AWS credentials set for the session.
- ``opensearch`` / ``dynamodb`` (session): clients for those endpoints.
- ``fresh_settings`` (function): ``stack_settings`` with new uniquely named tables (schemas from
  ``template.yaml``) and a unique ``opensearch_alias`` (``t-<8 hex>``); both cleaned up afterwards,
  including every index whose name starts with that alias.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.config import Settings

from dev import moto_server, opensearch_node
from dev.stack_env import (
    DEFAULT_DYNAMODB_ENDPOINT,
    DEFAULT_OPENSEARCH_ENDPOINT,
    FAKE_AWS_CREDENTIALS,
    paging_key,
    read_env,
)
from dev.tables import dynamodb_client, scratch_space

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/integration (this hook sees the whole session's items)."""
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)
    # Tests that kill a service run last: a restarted OpenSearch node starts empty (the sort is stable).
    items.sort(key=lambda item: item.get_closest_marker("restarts_stack") is not None)


def _endpoint(variable: str, stack_env: dict[str, str], default: str) -> str:
    """The environment wins, then ``.stack/env`` written by ``make up``, then the stack's default."""
    return os.environ.get(variable) or stack_env.get(variable) or default


@pytest.fixture(scope="session")
def stack_settings() -> Iterator[Settings]:
    """Settings for the running stack; fails (never skips) with instructions if it is not up."""
    stack_env = read_env()
    settings = Settings(
        opensearch_endpoint=_endpoint(
            "RETRIEVAL_OPENSEARCH_ENDPOINT", stack_env, DEFAULT_OPENSEARCH_ENDPOINT
        ),
        dynamodb_endpoint=_endpoint("RETRIEVAL_DYNAMODB_ENDPOINT", stack_env, DEFAULT_DYNAMODB_ENDPOINT),
        paging_key=os.environ.get("RETRIEVAL_PAGING_KEY")
        or stack_env.get("RETRIEVAL_PAGING_KEY")
        or paging_key(),
    )
    down = [
        f"{name} at {url}"
        for name, url, healthy in (
            ("OpenSearch", settings.opensearch_endpoint, opensearch_node.is_healthy),
            ("DynamoDB (moto)", settings.dynamodb_endpoint, moto_server.is_healthy),
        )
        if not healthy(url)
    ]
    if down:
        pytest.fail(
            f"local stack not reachable: {', '.join(down)}. Start it with `make up` "
            "(or run everything with `make test`); `python -m dev.stack status` shows what runs.",
            pytrace=False,
        )
    with pytest.MonkeyPatch.context() as patch:
        # SSM (knowledge base ids) is moto's, like DynamoDB.
        ssm = {"AWS_ENDPOINT_URL_SSM": settings.dynamodb_endpoint or DEFAULT_DYNAMODB_ENDPOINT}
        for name, value in {**FAKE_AWS_CREDENTIALS, "AWS_DEFAULT_REGION": settings.aws_region, **ssm}.items():
            patch.setenv(name, value)
        yield settings


@pytest.fixture(scope="session")
def opensearch(stack_settings: Settings) -> Iterator[Any]:
    """An opensearch-py client for the stack's node."""
    from opensearchpy import OpenSearch

    client = OpenSearch(hosts=[stack_settings.opensearch_endpoint], timeout=30)
    yield client
    client.close()


@pytest.fixture(scope="session")
def dynamodb(stack_settings: Settings) -> Any:
    """A boto3 DynamoDB client for the stack's moto server."""
    assert stack_settings.dynamodb_endpoint is not None
    return dynamodb_client(stack_settings.dynamodb_endpoint, stack_settings.aws_region)


@pytest.fixture
def fresh_settings(stack_settings: Settings, opensearch: Any) -> Iterator[Settings]:
    """``stack_settings`` with fresh tables and alias unique to this test, removed afterwards."""
    with scratch_space(stack_settings, "t") as settings:
        yield settings


@pytest.fixture
def fresh_env(fresh_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """``fresh_settings``, also in this test's environment: what a CLI command run by the test reads."""
    for name, value in fresh_settings.to_env().items():
        monkeypatch.setenv(name, value)
    return fresh_settings


@pytest.fixture(scope="session")
def corpus_settings(stack_settings: Settings, opensearch: Any) -> Iterator[Settings]:
    """The sample corpus loaded once per session into its own tables and alias; the handlers' environment
    points at them (see ``corpus_stack.provisioned_corpus``)."""
    from corpus_stack import provisioned_corpus

    with provisioned_corpus(stack_settings, opensearch) as settings:
        yield settings
