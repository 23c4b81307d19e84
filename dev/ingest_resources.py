"""The ingest bucket and parts queue for the dev stack and the tests, in the moto server (which serves
S3 and SQS on the DynamoDB port). Like the template's: a versioned bucket, a FIFO queue."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dev.stack_env import DEFAULT_REGION, FAKE_AWS_CREDENTIALS

if TYPE_CHECKING:
    from retrieval_core.config import Settings

INGEST_BUCKET = "retrieval-ingest"
PARTS_QUEUE = "retrieval-ingest-parts.fifo"
# Long enough for one part to load locally (the template sets six times the function's timeout).
VISIBILITY_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class IngestResources:
    bucket: str
    queue_url: str


def aws_client(service: str, endpoint: str) -> Any:
    import boto3

    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name=DEFAULT_REGION,
        aws_access_key_id=FAKE_AWS_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_AWS_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


def create_ingest_resources(
    endpoint: str, bucket: str = INGEST_BUCKET, queue: str = PARTS_QUEUE
) -> IngestResources:
    """Create the versioned bucket and the FIFO queue; idempotent, like ``create_tables``."""
    s3 = aws_client("s3", endpoint)
    with suppress(s3.exceptions.BucketAlreadyOwnedByYou):
        s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    sqs = aws_client("sqs", endpoint)
    queue_url = sqs.create_queue(
        QueueName=queue,
        Attributes={"FifoQueue": "true", "VisibilityTimeout": str(VISIBILITY_TIMEOUT_SECONDS)},
    )["QueueUrl"]
    return IngestResources(bucket, queue_url)


def delete_ingest_resources(endpoint: str, resources: IngestResources) -> None:
    """Empty (every version) and delete the bucket, delete the queue."""
    s3 = aws_client("s3", endpoint)
    # Every version listed before any is deleted (deleting while paging skips some of a large bucket),
    # then removed a thousand a request.
    versions = [
        {"Key": entry["Key"], "VersionId": entry["VersionId"]}
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=resources.bucket)
        for entry in [*page.get("Versions", []), *page.get("DeleteMarkers", [])]
    ]
    for start in range(0, len(versions), 1000):
        batch = versions[start : start + 1000]
        s3.delete_objects(Bucket=resources.bucket, Delete={"Objects": batch, "Quiet": True})
    s3.delete_bucket(Bucket=resources.bucket)
    aws_client("sqs", endpoint).delete_queue(QueueUrl=resources.queue_url)


def ingest_env(endpoint: str, resources: IngestResources) -> dict[str, str]:
    """What clients need: boto3's per-service endpoints (moto), the queue the function fans out to,
    and the bucket the CLI uploads to."""
    return {
        "AWS_ENDPOINT_URL_S3": endpoint,
        "AWS_ENDPOINT_URL_SQS": endpoint,
        "RETRIEVAL_INGEST_QUEUE_URL": resources.queue_url,
        "RETRIEVAL_INGEST_BUCKET": resources.bucket,
    }


@contextmanager
def scratch_ingest(base: Settings, tag: str) -> Iterator[IngestResources]:
    """A fresh bucket and queue named ``<tag>-<8 hex>``, removed when the block ends."""
    assert base.dynamodb_endpoint is not None, "the ingest bucket lives in the moto server"
    suffix = f"{tag}-{uuid.uuid4().hex[:8]}"
    resources = create_ingest_resources(base.dynamodb_endpoint, suffix, f"{suffix}.fifo")
    try:
        yield resources
    finally:
        delete_ingest_resources(base.dynamodb_endpoint, resources)
