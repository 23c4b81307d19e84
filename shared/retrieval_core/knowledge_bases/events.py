"""How a file written or removed through the document plane reaches the ingest pipeline
(``ports.DocumentEvents``): in a deployed stack the bucket's notifications run the ingest function for
what the API wrote or deleted, and a file indexed where it is (an S3 document) is handed to that
function as the notification it would have sent (``HandedToIngest``); locally, with no notifications,
the pipeline runs in place (``InPlace``), so the answer already says what became of each file."""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

from ..documents.status import DocumentStatus
from ..ingest.objects import CONTEXTS_PREFIX
from ..models.ingest import ObjectRef

if TYPE_CHECKING:
    from ..ingest.document_files import DocumentFiles


class InPlace:
    """The pipeline run in this process, one file after another."""

    def __init__(self, files: Callable[[], DocumentFiles], bucket: str) -> None:
        self._files = files
        self._bucket = bucket

    def apply(
        self, context_id: str, keys: Sequence[str], *, removed: bool, notified: bool
    ) -> list[DocumentStatus | None]:
        files = self._files()
        refs = [ObjectRef(self._bucket, f"{CONTEXTS_PREFIX}{context_id}/{key}") for key in keys]

        def applied() -> list[DocumentStatus | None]:
            return [files.removed(ref) if removed else files.created(ref) for ref in refs]

        # With the time of its own (no request deadline), as the ingest function's invocation would
        # have: a cold container's first document loads the embedder before it writes anything.
        return contextvars.Context().run(applied)


class HandedToIngest:
    """Notifications do the work; what they would not see is sent to the ingest function as theirs
    (``Event`` invocation: the answer does not wait for it)."""

    def __init__(self, invoke: Callable[[dict[str, Any]], None], bucket: str, region: str) -> None:
        self._invoke = invoke
        self._bucket = bucket
        self._region = region

    def apply(
        self, context_id: str, keys: Sequence[str], *, removed: bool, notified: bool
    ) -> list[DocumentStatus | None]:
        if not notified and keys:
            self._invoke(notification(self._bucket, self._region, context_id, keys, removed=removed))
        return [None] * len(keys)


def notification(
    bucket: str, region: str, context_id: str, keys: Sequence[str], *, removed: bool
) -> dict[str, Any]:
    """The S3 notification of ``keys`` (relative to the context) being written, or removed."""
    name = "ObjectRemoved:Delete" if removed else "ObjectCreated:Put"
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": region,
                "eventName": name,
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
                    "object": {"key": quote_plus(f"{CONTEXTS_PREFIX}{context_id}/{key}", safe="/")},
                },
            }
            for key in keys
        ]
    }


def lambda_invoker(function_name: str, region: str) -> Callable[[dict[str, Any]], None]:
    """An asynchronous invocation of ``function_name`` with a JSON payload."""
    import boto3

    client = boto3.client("lambda", region_name=region)

    def invoke(payload: dict[str, Any]) -> None:
        from ..aws import aws_failures

        with aws_failures("lambda", "Invoke"):
            client.invoke(FunctionName=function_name, InvocationType="Event", Payload=json.dumps(payload))

    return invoke
