"""A scratch ingest deployment for document tests that run ``retrieval sync`` as code or as a process:
fresh tables, alias, bucket (no queue), the handlers composed on them, and the environment a
``retrieval`` process needs to reach the same ones."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from dev.ingest_resources import IngestResources, scratch_ingest


@dataclass(frozen=True)
class Deployment:
    settings: Settings
    resources: IngestResources

    def env(self) -> dict[str, str]:
        """A ``retrieval`` process's environment for this deployment."""
        return (
            dict(os.environ)
            | self.settings.to_env()
            | {
                "RETRIEVAL_INGEST_BUCKET": self.resources.bucket,
                "AWS_ENDPOINT_URL_S3": self.settings.dynamodb_endpoint or "",
            }
        )


@contextmanager
def deployment(base: Settings, tag: str) -> Iterator[Deployment]:
    endpoint = base.dynamodb_endpoint
    assert endpoint
    with scratch_ingest(base, tag) as resources, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        patch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        settings = base.model_copy(update={"ingest_queue_url": None})
        with bootstrap.use(bootstrap.Container(settings)):
            yield Deployment(settings, resources)


def status(key: str, context_id: str = "acme") -> tuple[int, dict[str, Any]]:
    encoded = quote(key, safe="")
    event = api_event("GET", f"/v1/documents/{encoded}", context_id, path_parameters={"key": encoded})
    response = invoke("retrieve", event)
    return response["statusCode"], json.loads(response["body"])


def texts(text: str, context_id: str = "acme", top_k: int = 50) -> list[str]:
    body = {"mode": "lexical", "text": text, "top_k": top_k}
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context_id, body=body))
    assert response["statusCode"] == 200, response["body"]
    return [hit["text"] for hit in json.loads(response["body"])["hits"]]
