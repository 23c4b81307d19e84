"""Which context an object belongs to, and where its reports and parts go.

The context comes from the key alone: ``contexts/<context_id>/...``. Bucket policies can grant a writer
``s3:PutObject`` on ``contexts/acme/*`` only, so the prefix is an IAM-enforced claim, the way an
authorizer's claim is for the API (docs/INGEST.md, "Trust model").
"""

from __future__ import annotations

from ..context import CONTEXT_ID_PATTERN
from ..models.ingest import ObjectRef

CONTEXTS_PREFIX = "contexts/"
REPORTS_PREFIX = "reports/"
PARTS_PREFIX = "parts/"


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
