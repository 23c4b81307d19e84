"""Errors of ingestion."""

from __future__ import annotations

from ..errors import InvalidRequestError, RetrievalError


class IngestEventError(InvalidRequestError):
    """The event is neither an S3 object notification nor a queued part; nothing was read or changed."""


class IngestIncompleteError(RetrievalError):
    """Some items of an object could not be written. The report names them; raising makes the platform
    retry the invocation (loading is idempotent) and, once retries are spent, park it in the DLQ."""

    code = "ingest_incomplete"
