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
from schemathesis.specs.openapi.checks import positive_data_acceptance
from stack_state import REPO

EXAMPLES_PER_OPERATION = 15
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


# What JSON Schema cannot say about a retrieve body (each is stated in the field's description): a rule
# across fields, or one that depends on the deployment. A schema-valid body breaking one is a 422 that
# names it; any other 422 of a schema-valid body is a mismatch.
RETRIEVE_RULES_IN_WORDS = (
    "'to' must not be before 'from'",  # window
    "needs exactly one operator",  # a filter node whose only operators are null
    "a budget is required",  # pack: max_tokens or max_chars
    "give max_tokens or max_chars, not both",
    "is required for mode",  # the mode's field present but null
    "dimensions, got",  # the deployment's embedding dimension
    "at most 1000 words",
    "32-bit float",  # a vector component or length float32 cannot hold
    "vector's length",
    "years 1-9999",  # a moment outside the calendar (models/calendar.py)
    "holds a NUL character",  # strings the product cannot hold (models/limits.py)
    "lone surrogate",
    "expand_graph is for hybrid",  # auto adds a linked entity's edges itself
    "auto adds a linked entity's edges as an arm itself",  # the same message's second clause
    "scale it down",  # a number too large to represent's second clause
    "cannot filter",  # a filter the index cannot apply exactly (the deployment's metadata types)
    "idempotency_key needs a session_id",  # a key is kept in its session
    "already used for a different request in this session",  # a key generated twice, another body
    "use a new key for a new request",
    # A filter value of its key's type (the key picks the type: a rule across fields).
    "' is a keyword)",
    "' is a number)",
    "' is a date)",
    "' is a boolean)",
    "' is a float32)",
    "must be one of",  # kind and status values
    ": ranges apply to numbers and dates",
    ": patterns apply to strings",
    "must be a number or an ISO-8601 timestamp with a zone",
    "levels deep; at most",  # a filter's depth and size (recursive: JSON Schema cannot count them)
    "leaves; at most",
    "The packet header alone needs",  # pack: a budget below the header the request itself makes
)


def retrieve_rules_only(response: Any, case: schemathesis.Case) -> None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return
    message = response.json()["message"]
    problems = [
        part for part in message.split("; ") if not any(rule in part for rule in RETRIEVE_RULES_IN_WORDS)
    ]
    assert not problems, f"a schema-valid body was refused for: {problems}"


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_documented_operation_answers_as_documented(case: schemathesis.Case, api: str) -> None:
    if case.operation.label != "POST /v1/retrieve":
        case.call_and_validate(base_url=api, headers=AUTH)
        return
    response = case.call(base_url=api, headers=AUTH)
    case.validate_response(response, excluded_checks=[positive_data_acceptance])
    retrieve_rules_only(response, case)
