"""What a hit carries for an agent to cite, and which of it a caller asked for.

A hit always names its item (id, kind, score, status, confidence, created_at, found_by); the other
parts are optional (``include``) so an agent that only needs ids or texts pays no tokens for the rest.
``metadata`` is capped (``METADATA_CAP_CHARS``): the loader accepts any metadata, a response must not
grow with it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

METADATA_CAP_CHARS = 2048
"""At most this many characters of compact JSON of an item's metadata come back with a hit: whole keys,
in the item's order, while they fit; ``metadata_truncated`` says some were left out (``why_explain``
and the source itself have the rest). About 500 tokens: a citation, not a document."""


class HitPart(StrEnum):
    TEXT = "text"
    SIGNALS = "signals"
    MENTIONS = "mentions"
    PROVENANCE = "provenance"
    METADATA = "metadata"
    VALIDITY = "validity"
    LOCATION = "location"


HIT_PART_FIELDS: dict[HitPart, tuple[str, ...]] = {
    HitPart.TEXT: ("text", "truncated"),
    HitPart.SIGNALS: ("signals", "path"),
    HitPart.MENTIONS: ("mentions",),
    HitPart.PROVENANCE: ("provenance",),
    HitPart.METADATA: ("metadata", "metadata_truncated"),
    HitPart.VALIDITY: ("valid_from", "valid_to"),
    HitPart.LOCATION: ("location",),
}
"""The response fields of each part."""

HIT_PARTS_DESCRIPTION = (
    "text: the item's text; signals: each arm's rank and score (and a multi-hop hit's path); "
    "mentions: the entities it names; "
    "provenance: source ids, grounding URIs and what it supersedes; metadata: the item's metadata "
    f"(at most {METADATA_CAP_CHARS:,} characters of JSON); validity: valid_from and valid_to; location: "
    "where to cite it (the first grounding span with a URI, else metadata.uri)."
)


def omitted_fields(include: Sequence[HitPart] | None) -> frozenset[str]:
    """The hit fields a response leaves out for ``include`` (none when it is not given)."""
    if include is None:
        return frozenset()
    return frozenset(f for part, fields in HIT_PART_FIELDS.items() if part not in include for f in fields)


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Made once (``json.dumps`` with options builds an encoder per call)."""


def capped_metadata(metadata: Mapping[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """``metadata`` cut to ``METADATA_CAP_CHARS`` by whole keys, and whether any key was left out."""
    if not metadata:
        return {}, False
    if len(_COMPACT.encode(metadata)) <= METADATA_CAP_CHARS:
        return dict(metadata), False  # the usual case, in one measure
    # Measured as compact JSON: two braces, then each key-value pair and a comma between pairs.
    kept: dict[str, Any] = {}
    used = 2
    for key, value in metadata.items():
        size = len(_COMPACT.encode({key: value})) - 2 + bool(kept)
        if used + size <= METADATA_CAP_CHARS:
            kept[key] = value
            used += size
    return kept, len(kept) < len(metadata)


LOCATION_KEYS = ("uri", "chunk_id", "start", "end", "page", "section", "version")


def location_of(
    grounding: Sequence[Mapping[str, Any]], metadata: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Where a hit can be cited: its first grounding span with a URI (with the chunk and offsets), else a
    string ``metadata.uri``; None when the item names no place."""
    for span in grounding:
        if span.get("uri"):
            return {key: span.get(key) for key in LOCATION_KEYS}
    uri = (metadata or {}).get("uri")
    return (
        {"uri": uri, "chunk_id": None, "start": None, "end": None} if isinstance(uri, str) and uri else None
    )
