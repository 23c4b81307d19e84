"""What the read side returns: hits and edges (lineage cards: ``lineage.py``), and how a stored item
becomes a hit (``hit_of``: the answer's limits, the metadata cap, the place to cite). These are also
the leak-free response DTOs: nothing here names a storage type, an index, an internal key or another
context."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from .hit_parts import METADATA_CAP_CHARS
from .limits import LIMITS
from .vocabulary import Kind, Status, empty_dict, empty_list


class Signal(BaseModel):
    """How one retrieval arm saw a hit: its 1-based rank and its score in that arm (the raw score, except
    for the lexical arm of a pool deployment, which reports 1/rank: shared BM25 statistics stay hidden)."""

    model_config = ConfigDict(frozen=True)

    rank: int = Field(ge=1)
    score: float = Field(allow_inf_nan=False)


class MentionView(BaseModel):
    entity_id: str
    name: str
    type: str
    role: str | None = None


class Hop(BaseModel):
    """One link a multi-hop walk followed to reach a hit: from a passage ranked above it, through an
    entity that passage names (``mentions``) to the page about it (``about``), or to another passage
    naming it too (``co_mentions``)."""

    model_config = ConfigDict(frozen=True)

    from_id: str = Field(
        description="The passage the link leaves from (a hit of the same answer), or `question` when the "
        "question itself names the entity."
    )
    entity_id: str
    entity: str = Field(description="The entity's name.")
    link: str = Field(description="`about`: the hit is the entity's page; `mentions`: it names it too.")


class Provenance(BaseModel):
    """A short summary of where a hit came from; ``why_explain`` gives the full lineage."""

    source_ids: list[str] = Field(default_factory=empty_list)
    grounding_uris: list[str] = Field(default_factory=empty_list)
    supersedes: list[str] = Field(default_factory=empty_list)


class Location(BaseModel):
    """Where a hit can be cited from: a source URI and, for a grounding span, its chunk and offsets, the
    file's path, the section and its anchor, and a link a person can open when the source is published."""

    uri: str = Field(description="The stored object (s3://bucket/contexts/<context>/<path>) or source.")
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = Field(default=None, description="1-based page (PDF; DOCX with page breaks).")
    section: str | None = Field(default=None, description="The heading path, 'A > B'.")
    version: str | None = Field(default=None, description="The source file's version.")
    path: str | None = Field(
        default=None, description="The file's path relative to the synced folder (its context's prefix)."
    )
    local_path: str | None = Field(
        default=None, description="The file's absolute path on the machine that synced it (a local sync)."
    )
    anchor: str | None = Field(
        default=None, description="The section's anchor in the file (its heading's id): `#<anchor>` opens it."
    )
    url: str | None = Field(
        default=None,
        description="A link a person can open: the published page with the section's anchor (the base URL "
        "of the folder or prefix, docs/DOCUMENTS.md), or the source's own http(s) URI.",
    )


class Hit(BaseModel):
    id: str
    kind: Kind
    text: str
    score: float = Field(
        allow_inf_nan=False,
        description="The ranking score: orders this question's hits, means nothing across questions.",
    )
    relevance: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="A calibrated estimate that the hit is relevant, comparable across questions and "
        "collections: 0.4 keeps 95% of the relevant hits of a top 10 on the development collections "
        "(docs/BEDROCK.md, Scores). Never rises down the ranking, nor from one page to the next (a page "
        "interleaved by kind shows each hit's own). The Bedrock Retrieve route's score.",
    )
    signals: dict[str, Signal] = Field(default_factory=empty_dict)
    status: Status
    confidence: float | None = None
    created_at: str
    mentions: list[MentionView] = Field(default_factory=empty_list)
    provenance: Provenance = Field(default_factory=Provenance)
    found_by: list[str] = Field(default_factory=empty_list, description="The arms that found this hit.")
    truncated: bool = Field(
        default=False, description="The text was cut to fit the answer's size limit (docs/API.md, Limits)."
    )
    metadata: dict[str, Any] = Field(
        default_factory=empty_dict,
        description=f"The item's metadata, at most {METADATA_CAP_CHARS:,} characters of JSON (whole keys).",
    )
    metadata_truncated: bool = Field(default=False, description="Some metadata keys did not fit the cap.")
    valid_from: str | None = Field(default=None, description="When the fact became true, if known.")
    valid_to: str | None = Field(default=None, description="When it stopped being true; null while it is.")
    location: Location | None = Field(default=None, description="Where to cite it from, when known.")
    path: list[Hop] | None = Field(
        default=None,
        description="Multi-hop (hops > 1): how the walk reached this hit, hop by hop from a passage the "
        "text search found; null for a hit the text search ranked on its own.",
    )

    @property
    def location_uri(self) -> str | None:
        return None if self.location is None else self.location.uri

    def rescored(self, score: float) -> Hit:
        """This hit with another score (weights, normalisation); everything else is shared."""
        return self.model_copy(update={"score": score})

    def vouches_for(self, edge: Edge) -> bool:
        """Whether this item's document says what ``edge`` says (it mentions both ends). The document is an
        update's commit point: its rows are written before it, so a row it does not vouch for belongs to
        another version of the item and is never shown beside this text (docs/DOCUMENTS.md)."""
        mentioned = {mention.entity_id for mention in self.mentions}
        return edge.from_id in mentioned and edge.to_id in mentioned


StoredItem = Mapping[str, Any]
"""An item as a store keeps it and a search reads it back: ``Item``'s fields in their JSON form (``id``,
``context_id``, ``kind``, ``status``, ``text``, ``mentions``, ``grounding``, ``metadata``, ...). Plain
data: the store hands it over and is done; ``hit_of`` makes the response hit from it."""


class Candidate(NamedTuple):
    """One arm's ranked item before fusion: what fusion, weights, ordering and diversity read (id, kind,
    the arm's score) and what the arm found. That is the stored item, whose response ``Hit`` is made only
    if it is returned (a hybrid search ranks up to 100 candidates per arm and returns ``top_k``), or a
    hit already made (a graph walk's, which keeps its own signals and path)."""

    id: str
    kind: Kind
    score: float
    found: StoredItem | Hit

    def hit(self, *, score: float, signals: dict[str, Signal], found_by: list[str]) -> Hit:
        """The response hit, ranked with ``score`` by the arms ``found_by`` (how each saw it: ``signals``)."""
        if isinstance(self.found, Hit):
            return self.found if score == self.found.score else self.found.rescored(score)
        return hit_of(self.found, score=score, signals=signals, found_by=found_by)


class Edge(BaseModel):
    """One directed edge of the entity graph, carried by the proposition that mentions both ends."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    from_id: str = Field(alias="from")
    to_id: str = Field(alias="to")
    proposition_id: str
    status: Status
    confidence: float | None = None
    created_at: str


def hit_of(
    source: StoredItem,
    *,
    score: float,
    signals: dict[str, Signal] | None = None,
    found_by: list[str] | None = None,
) -> Hit:
    """The response hit of a stored item: its text cut to fit an answer, its metadata capped, the place to
    cite it from. Mentions outside the item's own context are dropped (the loader rejects them, this is a
    second line of defence).

    Validated from one plain dict: pydantic-core does that faster than building the nested models in
    Python (``model_construct`` included)."""
    context_prefix = f"{source['context_id']}:"
    grounding = source.get("grounding", [])
    metadata, metadata_truncated = capped_metadata(source.get("metadata"))
    # A hierarchical child answers with its parent's passage (grounding ``text``), scored as itself.
    passage = next((g["text"] for g in grounding if g.get("text")), None)
    text, text_truncated = fit_text(passage or source["text"], LIMITS.hit_text_bytes)
    return Hit.model_validate(
        {
            "id": source["id"],
            "kind": source["kind"],
            "text": text,
            "truncated": text_truncated,
            "score": score,
            "signals": signals or {},
            "status": source["status"],
            "confidence": source.get("confidence"),
            "created_at": source["created_at"],
            "mentions": [m for m in source.get("mentions", []) if m["entity_id"].startswith(context_prefix)],
            "provenance": {
                "source_ids": source.get("source_ids", []),
                "grounding_uris": [g["uri"] for g in grounding if g.get("uri")],
                "supersedes": source.get("supersedes", []),
            },
            "found_by": found_by or [],
            "metadata": metadata,
            "metadata_truncated": metadata_truncated,
            "valid_from": source.get("valid_from"),
            "valid_to": source.get("valid_to"),
            "location": location_of(grounding, source.get("metadata")),
        }
    )


# JSON escapes a character as at most 6 bytes (\u0000); a text this short cannot pass any limit.
_MAX_ESCAPED_CHAR_BYTES = 6


def fit_text(text: str, limit_bytes: int) -> tuple[str, bool]:
    """``text``, or its longest prefix whose JSON form fits ``limit_bytes``, and whether it was cut."""
    if len(text) * _MAX_ESCAPED_CHAR_BYTES <= limit_bytes or _json_size(text) <= limit_bytes:
        return text, False
    low, high = 0, min(len(text), limit_bytes)
    while low < high:  # the longest prefix that fits: a binary search over JSON sizes
        middle = (low + high + 1) // 2
        if _json_size(text[:middle]) <= limit_bytes:
            low = middle
        else:
            high = middle - 1
    return text[:low], True


def _json_size(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


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


LOCATION_KEYS = (
    "uri",
    "chunk_id",
    "start",
    "end",
    "page",
    "section",
    "version",
    "path",
    "local_path",
    "anchor",
)


def location_of(
    grounding: Sequence[Mapping[str, Any]], metadata: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Where a hit can be cited: its first grounding span with a URI (with the chunk, offsets, path,
    section and anchor), else a string ``metadata.uri``; None when the item names no place. Its ``url``
    is the span's link, else the URI itself when that is a web address."""
    for span in grounding:
        if span.get("uri"):
            location = {key: span.get(key) for key in LOCATION_KEYS}
            location["url"] = span.get("url") or _web(span["uri"])
            return location
    uri = (metadata or {}).get("uri")
    if not isinstance(uri, str) or not uri:
        return None
    return {"uri": uri, "chunk_id": None, "start": None, "end": None, "url": _web(uri)}


def _web(uri: str) -> str | None:
    return uri if uri[:8].lower().startswith(("https://", "http://")) else None
