"""What a hit carries for an agent to cite, and which of it a caller asked for.

A hit always names its item (id, kind, score, relevance, status, confidence, created_at, found_by); the
other parts are optional (``include``) so an agent that only needs ids or texts pays no tokens for the
rest.
``metadata`` is capped (``METADATA_CAP_CHARS``): the loader accepts any metadata, a response must not
grow with it.
"""

from __future__ import annotations

from enum import StrEnum

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
