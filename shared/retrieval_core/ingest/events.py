"""The events that start ingestion: S3 ``ObjectCreated`` and ``ObjectRemoved`` notifications (delivered
to the function directly) and queued parts (SQS messages whose body is a ``PartTask``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from pydantic import ValidationError

from ..models.ingest import ObjectRef, PartTask
from .errors import IngestEventError


@dataclass(frozen=True, slots=True)
class ObjectRemoved:
    """An ``ObjectRemoved`` notification: a document's chunks go with it (JSON Lines loads stay)."""

    ref: ObjectRef

    @property
    def key(self) -> str:
        return self.ref.key


Work = ObjectRef | ObjectRemoved | PartTask


def work_of(event: Mapping[str, Any]) -> list[Work]:
    """The objects and parts an event asks for, in order; anything else is an ``IngestEventError``."""
    records = event.get("Records")
    if not isinstance(records, list) or not records:
        raise IngestEventError("expected an S3 notification or SQS event with Records")
    work: list[Work] = []
    for number, record in enumerate(records):
        source = record.get("eventSource") if isinstance(record, Mapping) else None
        if source == "aws:s3":
            name = str(record.get("eventName", ""))
            if name.startswith("ObjectCreated:"):
                work.append(_object_of(record, number))
            elif name.startswith("ObjectRemoved:"):
                work.append(ObjectRemoved(_object_of(record, number)))
            # other notifications (restores, replication) change nothing
        elif source == "aws:sqs":
            try:
                work.append(PartTask.model_validate_json(record["body"]))
            except (KeyError, TypeError, ValidationError) as error:
                raise IngestEventError(f"Records[{number}] is not a queued part: {error}") from error
        else:
            raise IngestEventError(f"Records[{number}] comes from {source!r}, not aws:s3 or aws:sqs")
    return work


def _object_of(record: Mapping[str, Any], number: int) -> ObjectRef:
    try:
        s3 = record["s3"]
        bucket, obj = s3["bucket"]["name"], s3["object"]
        # Keys arrive URL-encoded, spaces as '+'.
        return ObjectRef(
            bucket, unquote_plus(obj["key"]), obj.get("versionId"), obj.get("eTag"), obj.get("sequencer")
        )
    except (KeyError, TypeError) as error:
        raise IngestEventError(f"Records[{number}] lacks s3.bucket.name or s3.object.key") from error
