"""``retrieval ingest FILE.jsonl --context acme``: upload the file to the local ingest bucket under
``contexts/acme/`` and run the ingest function on the notification S3 would send, then on every part
it queued (as the SQS trigger would), and print the object's report.

``--upload-only`` prints the notification instead, for ``retrieval invoke ingest EVENT.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_BUCKET = "retrieval-ingest"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        type=Path,
        help="JSON Lines (.jsonl, .ndjson, gzip too), or a document (docs/DOCUMENTS.md; others are skipped).",
    )
    parser.add_argument("--context", required=True, help="The context: the key goes under contexts/<it>/.")
    parser.add_argument(
        "--key", help="The object key, under contexts/<context>/ (default: contexts/<context>/<file name>)."
    )
    parser.add_argument("--upload-only", action="store_true", help="Upload and print the S3 event only.")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    key = args.key or f"contexts/{args.context}/{args.file.name}"
    try:
        body = readable(args.file, key, args.context)
    except RefusedFileError as refused:
        print(f"retrieval ingest: {refused}", file=sys.stderr)
        return 2
    from .environment import use_local_stack_env

    use_local_stack_env()
    event = upload(body, key)
    if args.upload_only:
        print(json.dumps(event, indent=2))
        return 0
    response = invoke_with_parts(event, show_progress=True)
    document = response["body"]["objects"][0].get("document") if response["statusCode"] == 200 else None
    if document is not None:
        print(json.dumps(document, indent=2))
        return 1 if document["status"] == "failed" else 0
    report = read_report(key)
    print(json.dumps(report, indent=2))
    ok = response["statusCode"] == 200 and report["status"] == "complete" and not report["rejected"]
    return 0 if ok else 1


class RefusedFileError(Exception):
    """The file or key ``retrieval ingest`` was given is not sent: the message is the one line it prints."""


def readable(path: Path, key: str, context_id: str) -> bytes:
    """The file's bytes, once its key is one S3 can take under ``contexts/<context_id>/`` and the path is
    a regular file read without following a link (``folder_files``): else ``RefusedFileError``."""
    from .folder_files import UnsafePathError, key_problem, printable, read_regular

    home = f"contexts/{context_id}/"
    if not key.startswith(home) or key == home:
        raise RefusedFileError(f"--key {printable(key)} is not a key under {home} (--context {context_id})")
    if (problem := key_problem(key)) is not None:
        raise RefusedFileError(f"{printable(key)} {problem}")
    if not path.is_symlink() and not path.exists():
        raise RefusedFileError(f"no such file: {printable(str(path))}")
    try:
        return read_regular(path)
    except UnsafePathError as unsafe:
        raise RefusedFileError(f"{printable(str(path))} {unsafe.reason}") from None


def upload(body: bytes, key: str) -> dict[str, Any]:
    """Put ``body`` at ``key`` in the local ingest bucket; returns the notification S3 would send. The
    store is the ingest function's own (one client per process: building one per file cost ~60 ms
    each), which answers that event's reads from ``body`` instead of reading the object back."""
    from retrieval_core.bootstrap import container

    bucket = os.environ.get("RETRIEVAL_INGEST_BUCKET", DEFAULT_BUCKET)
    put = container().objects.upload(bucket, key, body)  # its event then reads the bytes in hand
    event = s3_event(bucket, key, size=len(body), etag=put.etag or "", version_id=put.version_id)
    event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
    return event


def sequencer() -> str:
    """A sequencer later than every earlier one of this machine (S3's are hex numbers that grow per key):
    nanoseconds since the epoch, in S3's width."""
    import time

    return f"{time.time_ns():018X}"


def read_report(key: str) -> dict[str, Any]:
    """``reports/<key>.json`` from the local ingest bucket."""
    import boto3

    bucket = os.environ.get("RETRIEVAL_INGEST_BUCKET", DEFAULT_BUCKET)
    report = boto3.client("s3").get_object(Bucket=bucket, Key=f"reports/{key}.json")["Body"].read()
    return dict(json.loads(report))


def s3_event(bucket: str, key: str, *, size: int, etag: str, version_id: str | None) -> dict[str, Any]:
    """The ``ObjectCreated:Put`` notification S3 sends for ``key`` (keys are URL-encoded in it)."""
    from urllib.parse import quote_plus

    obj: dict[str, Any] = {"key": quote_plus(key, safe="/"), "size": size, "eTag": etag.strip('"')}
    if version_id:
        obj["versionId"] = version_id
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": os.environ.get("AWS_REGION", "us-east-1"),
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "configurationId": "ingest",
                    "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
                    "object": obj,
                },
            }
        ]
    }


def invoke_with_parts(event: dict[str, Any], *, show_progress: bool = False) -> dict[str, Any]:
    """Run the handler on ``event``, then on each queued part until the queue is empty, as the SQS
    trigger would (one message per invocation). The response lists the part invocations' bodies. With
    ``show_progress``, the parts are counted on a terminal as they load."""
    from retrieval_core.bootstrap import container

    from .lambda_runtime import invoke
    from .progress import Progress

    response = dict(invoke("ingest", event))
    queue_url = container().settings.ingest_queue_url
    if queue_url and response.get("statusCode") == 200:
        queued = sum(summary.get("parts_queued", 0) for summary in response["body"]["objects"])
        bar = Progress(queued, label="ingesting", unit="parts", quiet=not show_progress or not queued)
        try:
            response["parts"] = [part["body"] for part in drain(queue_url, bar.update)]
        finally:
            bar.close()
    return response


def drain(queue_url: str, progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Invoke the handler once per queued message (``progress`` told how many ran); a failing part is
    made visible again at once (a fast retry) and its error raised, as Lambda would retry it."""
    import boto3

    from .lambda_runtime import invoke

    sqs = boto3.client("sqs")
    responses: list[dict[str, Any]] = []
    while True:
        messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=1).get("Messages", [])
        if not messages:
            return responses
        message = messages[0]
        record = {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {},
            "md5OfBody": message["MD5OfBody"],
            "eventSource": "aws:sqs",
            "eventSourceARN": f"arn:aws:sqs:us-east-1:000000000000:{queue_url.rsplit('/', 1)[-1]}",
            "awsRegion": "us-east-1",
        }
        try:
            responses.append(invoke("ingest", {"Records": [record]}))
        except Exception:
            sqs.change_message_visibility(
                QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
            raise
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        if progress is not None:
            progress(len(responses))
