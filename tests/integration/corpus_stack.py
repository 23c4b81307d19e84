"""A session-wide copy of the sample corpus in fresh tables and a fresh alias, with the environment the
handlers read pointing at it, plus helpers that call the real handlers with API Gateway events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event, why_event
from retrieval_dev.cli.lambda_runtime import invoke
from stack_state import SAMPLE_CORPUS, load_file

from dev.sample.knowledge_bases import register_sample_knowledge_bases
from dev.tables import scratch_space


@contextmanager
def provisioned_corpus(
    stack_settings: Settings, opensearch: Any, *, serve: bool = True
) -> Iterator[Settings]:
    """Fresh tables and indices (in ``stack_settings``' isolation model) holding the sample corpus; with
    ``serve``, handlers read them while the block runs."""
    with scratch_space(stack_settings, "c") as settings:
        report = load_file(settings, SAMPLE_CORPUS)
        assert report.ok, report.summary()
        # Served as knowledge bases under the sample's ids, in the stack's SSM (as `make up` does).
        assert settings.dynamodb_endpoint is not None
        register_sample_knowledge_bases(
            settings.dynamodb_endpoint, settings.knowledge_base_parameter_path, settings.aws_region
        )
        if not serve:
            yield settings
            return
        with bootstrap.use(bootstrap.Container(settings)):
            yield settings


def call(function: str, event: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Invoke a handler; returns status, parsed body and headers."""
    response = invoke(function, event)
    if "body" in response and isinstance(response["body"], str):
        headers = {k: v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}
        return response["statusCode"], json.loads(response["body"]), headers | (response.get("headers") or {})
    return response["statusCode"], response["body"], {}


def retrieve(
    context_id: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[int, dict]:
    event = api_event("POST", "/v1/retrieve", context_id, body=body)
    event["headers"].update(headers or {})
    status, payload, _ = call("retrieve", event)
    return status, payload


def graph_path(context_id: str, **query: Any) -> tuple[int, dict]:
    event = api_event("GET", "/v1/graph/path", context_id, query={k: str(v) for k, v in query.items()})
    status, payload, _ = call("graph_path", event)
    return status, payload


def why(context_id: str, item_id: str, depth: int | None = None) -> tuple[int, dict]:
    event = why_event(context_id, item_id, depth)
    status, payload, _ = call("why_explain", event)
    return status, payload
