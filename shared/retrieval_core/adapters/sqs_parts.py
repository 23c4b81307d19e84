"""Queued parts through boto3: a FIFO queue with one message group per object, so an object's parts
run one after another in file order while different objects run in parallel."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from typing import Any

from ..aws import aws_failures
from ..errors import BackendUnavailableError
from ..models.ingest import PartTask

SEND_BATCH = 10


@cache
def sqs_client(region: str) -> Any:
    """The container-wide SQS client (``AWS_ENDPOINT_URL_SQS`` points it at moto locally)."""
    import boto3
    from botocore.config import Config

    return boto3.client("sqs", region_name=region, config=Config(retries={"mode": "standard"}))


class SqsPartQueue:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url
        self._fifo = queue_url.endswith(".fifo")

    def send(self, tasks: Sequence[PartTask]) -> None:
        for start in range(0, len(tasks), SEND_BATCH):
            entries = [self._entry(task) for task in tasks[start : start + SEND_BATCH]]
            with aws_failures("sqs", "send_message_batch"):
                response = self._client.send_message_batch(QueueUrl=self._url, Entries=entries)
            if response.get("Failed"):
                raise BackendUnavailableError(f"{len(response['Failed'])} part messages were not queued")

    def _entry(self, task: PartTask) -> dict[str, Any]:
        entry: dict[str, Any] = {"Id": str(task.part.index), "MessageBody": task.model_dump_json()}
        if self._fifo:
            # One group per object keeps its parts in order; the deduplication id makes a replayed
            # notification within SQS's 5-minute window queue nothing twice.
            entry["MessageGroupId"] = _digest(task.bucket, task.key)
            entry["MessageDeduplicationId"] = _digest(
                task.bucket, task.key, task.ref.revision, task.part.index
            )
        return entry


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x00".join(map(str, parts)).encode("utf-8")).hexdigest()
