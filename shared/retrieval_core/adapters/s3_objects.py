"""The ingest bucket through boto3 (from the Lambda runtime): ranged reads, JSON reports.

Locally ``AWS_ENDPOINT_URL_S3`` (in ``.stack/env``) points boto3 at the moto server.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, BinaryIO, cast

from ..aws import aws_failures
from ..models.ingest import ObjectRef


@cache
def s3_client(region: str) -> Any:
    """The container-wide S3 client."""
    import boto3
    from botocore.config import Config

    return boto3.client("s3", region_name=region, config=Config(retries={"mode": "standard"}))


class S3ObjectStore:
    def __init__(self, client: Any) -> None:
        self._client = client
        self._held: tuple[ObjectRef, bytes] | None = None
        self._absent: set[tuple[str, str]] = set()
        """(bucket, key) of objects a running sync's listing says are not there (``known_absent``)."""

    def upload(self, bucket: str, key: str, body: bytes) -> ObjectRef:
        with aws_failures("s3", "put_object"):
            put = self._client.put_object(Bucket=bucket, Key=key, Body=body)
        ref = ObjectRef(bucket, key, put.get("VersionId"), put.get("ETag"))
        self._held = (ref, body)  # the latest upload only: its event follows at once
        self._absent.discard((bucket, key))
        return ref

    @contextmanager
    def known_absent(self, bucket: str, keys: Iterable[str]) -> Iterator[None]:
        self._absent = {(bucket, key) for key in keys}
        try:
            yield
        finally:
            self._absent = set()  # the container outlives the sync; other writers may add them after it

    def _in_hand(self, ref: ObjectRef) -> bytes | None:
        """The bytes of ``ref`` when it is the version this store last uploaded (an ETag or a version id
        names it), so its event does not read back what the caller just sent."""
        if self._held is None:
            return None
        held, body = self._held
        if (held.bucket, held.key) != (ref.bucket, ref.key):
            return None
        if ref.version_id or held.version_id:
            return body if ref.version_id == held.version_id else None
        same_etag = ref.etag is not None and (ref.etag or "").strip('"') == (held.etag or "").strip('"')
        return body if same_etag else None

    def identify(self, ref: ObjectRef) -> ObjectRef:
        with aws_failures("s3", "head_object"):
            head = self._client.head_object(Bucket=ref.bucket, Key=ref.key)
        return ObjectRef(ref.bucket, ref.key, head.get("VersionId"), head.get("ETag"))

    def open(self, ref: ObjectRef, start: int = 0, end: int | None = None) -> BinaryIO:
        if (held := self._in_hand(ref)) is not None:
            import io

            return io.BytesIO(held[start:end])
        request: dict[str, Any] = {"Bucket": ref.bucket, "Key": ref.key}
        if ref.version_id:
            request["VersionId"] = ref.version_id
        if start or end is not None:
            request["Range"] = f"bytes={start}-{'' if end is None else end - 1}"
        with aws_failures("s3", "get_object"):
            return cast(BinaryIO, self._client.get_object(**request)["Body"])

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        if (held := self._in_hand(ref)) is not None:
            return held[: limit + 1]
        if (ref.bucket, ref.key) in self._absent:  # a sidecar the sync's listing has not: no request
            return None
        from botocore.exceptions import ClientError

        request: dict[str, Any] = {"Bucket": ref.bucket, "Key": ref.key, "Range": f"bytes=0-{limit}"}
        if ref.version_id:
            request["VersionId"] = ref.version_id
        with aws_failures("s3", "get_object"):
            try:
                body: bytes = self._client.get_object(**request)["Body"].read(limit + 1)
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code")
                if code in {"NoSuchKey", "NoSuchVersion", "404", "MethodNotAllowed"}:
                    return None  # MethodNotAllowed: the current version is a delete marker
                if code == "InvalidRange":  # an empty object has no byte 0
                    return b""
                raise
        return body

    def read_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        from botocore.exceptions import ClientError

        with aws_failures("s3", "get_object"):
            try:
                body = self._client.get_object(Bucket=bucket, Key=key)["Body"].read()
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") in {"NoSuchKey", "404"}:
                    return None
                raise
        return cast(dict[str, Any], json.loads(body))

    def write_json(self, bucket: str, key: str, document: dict[str, Any]) -> None:
        body = json.dumps(document, indent=1, sort_keys=True).encode("utf-8")
        self._put(bucket, key, body, "application/json")

    def write_bytes(self, bucket: str, key: str, data: bytes) -> None:
        self._put(bucket, key, data, "application/x-ndjson")

    def write_document(self, bucket: str, key: str, data: bytes, content_type: str) -> None:
        """A document (or sidecar) written through bedrock-agent, with the type it was sent as."""
        self._put(bucket, key, data, content_type)

    def delete(self, bucket: str, key: str) -> None:
        """Remove ``key`` (a delete marker in a versioned bucket); nothing when there is none."""
        with aws_failures("s3", "delete_object"):
            self._client.delete_object(Bucket=bucket, Key=key)

    def keys(self, bucket: str, prefix: str, *, after: str | None = None) -> Iterator[str]:
        """The keys under ``prefix`` in key order (after ``after``), a page of a thousand a request."""
        request: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
        if after is not None:
            request["StartAfter"] = after
        with aws_failures("s3", "list_objects_v2"):
            for page in self._client.get_paginator("list_objects_v2").paginate(**request):
                yield from (entry["Key"] for entry in page.get("Contents", []))

    def _put(self, bucket: str, key: str, body: bytes, content_type: str) -> None:
        with aws_failures("s3", "put_object"):
            self._client.put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type)
