"""What the read side returns: hits and edges (lineage cards: ``lineage.py``). These are also the
leak-free response DTOs: nothing here names a storage type, an index, an internal key or another
context."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .hit_parts import METADATA_CAP_CHARS
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

    from_id: str = Field(description="The passage the link leaves from (a hit of the same answer).")
    entity_id: str
    entity: str = Field(description="The entity's name.")
    link: str = Field(description="`about`: the hit is the entity's page; `mentions`: it names it too.")


class Provenance(BaseModel):
    """A short summary of where a hit came from; ``why_explain`` gives the full lineage."""

    source_ids: list[str] = Field(default_factory=empty_list)
    grounding_uris: list[str] = Field(default_factory=empty_list)
    supersedes: list[str] = Field(default_factory=empty_list)


class Location(BaseModel):
    """Where a hit can be cited from: a source URI and, for a grounding span, its chunk and offsets."""

    uri: str
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = Field(default=None, description="1-based page (PDF; DOCX with page breaks).")
    section: str | None = Field(default=None, description="The heading path, 'A > B'.")
    version: str | None = Field(default=None, description="The source file's version.")


class Hit(BaseModel):
    id: str
    kind: Kind
    text: str
    score: float = Field(allow_inf_nan=False)
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


class HitBuilder(Protocol):
    def __call__(self, *, score: float, signals: dict[str, Signal], found_by: list[str]) -> Hit: ...


class Candidate(NamedTuple):
    """One arm's ranked item before fusion: what fusion, weights, ordering and diversity read (id, kind,
    the arm's score) and how to build the response ``Hit``. A hybrid search ranks up to 100 candidates
    per arm and returns ``top_k`` of them: only those are ever built."""

    id: str
    kind: Kind
    score: float
    build: HitBuilder


class Edge(BaseModel):
    """One directed edge of the entity graph, carried by the proposition that mentions both ends."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    from_id: str = Field(alias="from")
    to_id: str = Field(alias="to")
    proposition_id: str
    status: Status
    confidence: float | None = None
    created_at: str
