"""The API answers what docs/openapi.json says it answers: schemathesis (pinned in the dev extra) draws
requests from the document, valid and invalid, sends them to `retrieval serve` on the local stack, and
runs every one of its checks on each answer (status, content type, headers, body schema, data acceptance
and rejection, no 5xx). A fixed-seed sample keeps the run short and the same every time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from cli_process import serving
from hypothesis import HealthCheck, settings
from stack_state import REPO

EXAMPLES_PER_OPERATION = 25
AUTH = {"Authorization": "Bearer dev:acme"}

schema = schemathesis.openapi.from_path(REPO / "docs" / "openapi.json")
schema.config.checks.positive_data_acceptance.expected_statuses = [
    # A request the schema calls valid may still choose a context the caller does not hold (a drawn
    # X-Context-Id: 403), name what does not exist (a drawn item or session id: 404), repeat a query of
    # a drawn session (409), carry a drawn next_token the API never signed (400), or meet a session
    # budget (429). None of these is a contract mismatch.
    "2XX",
    "400",
    "403",
    "404",
    "409",
    "429",
]
# API Gateway (REST) answers a method a resource does not declare with 403 "Missing Authentication
# Token", `retrieval serve` with 501: neither reaches a function, so neither is the functions' contract
# and no such request is sent.
schema.config.checks.unsupported_method.enabled = False
schema.config.phases.coverage.unexpected_methods = set()


@pytest.fixture(scope="module")
def api(corpus_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**os.environ, **corpus_settings.to_env()}
    with serving(["serve"], tmp_path_factory.mktemp("contract") / "serve.log", env) as url:
        yield url


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_documented_operation_answers_as_documented(case: schemathesis.Case, api: str) -> None:
    case.call_and_validate(base_url=api, headers=AUTH)
