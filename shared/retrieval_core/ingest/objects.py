"""Which object, which context, and where its reports go.

The context comes from the key alone: ``contexts/<context_id>/...``. Bucket policies can grant a writer
``s3:PutObject`` on ``contexts/acme/*`` only, so the prefix is an IAM-enforced claim, the way an
authorizer's claim is for the API (docs/INGEST.md, "Trust model").
"""

from __future__ import annotations

from dataclasses import dataclass

from ..context import CONTEXT_ID_PATTERN

CONTEXTS_PREFIX = "contexts/"
REPORTS_PREFIX = "reports/"
PARTS_PREFIX = "parts/"


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """One version of one object. Without a version id (an unversioned bucket) the ETag pins it."""

    bucket: str
    key: str
    version_id: str | None = None
    etag: str | None = None

    @property
    def revision(self) -> str:
        """What identifies this upload among others of the same key: the version, else the content."""
        return self.version_id or (self.etag or "unversioned").strip('"')


def context_of_key(key: str) -> str | None:
    """``contexts/acme/2026/batch.jsonl`` -> ``acme``; None when the key is not under a valid context."""
    if not key.startswith(CONTEXTS_PREFIX):
        return None
    context_id, sep, rest = key[len(CONTEXTS_PREFIX) :].partition("/")
    if not sep or not rest or not CONTEXT_ID_PATTERN.fullmatch(context_id):
        return None
    return context_id


def report_key(key: str) -> str:
    """The object's report: ``reports/<same key>.json``."""
    return f"{REPORTS_PREFIX}{key}.json"


def part_report_key(ref: ObjectRef, index: int) -> str:
    """Where one part of one upload records what it did (kept so a replay can reuse it)."""
    return f"{PARTS_PREFIX}{ref.key}/{ref.revision}/{index:06d}.json"


def part_object_key(ref: ObjectRef, index: int) -> str:
    """Where planning puts the plain content of one part of a gzip object (read by that part)."""
    return f"{PARTS_PREFIX}{ref.key}/{ref.revision}/{index:06d}.jsonl"
