"""Request and response shapes of ``why_explain``. Depth is clamped, not rejected, and reported back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from ..models.hits import Hit, MentionView
from ..models.limits import DEPTH_RANGE, DoorModel, clamp
from ..models.vocabulary import Kind, Status, empty_list


class WhyExplainRequest(DoorModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(
        min_length=1, max_length=512, description="Any item id: a hit's id or the id behind an [S#] citation."
    )
    depth: StrictInt = Field(default=3, description="Derivation levels to follow; clamped to 1..5.")

    @field_validator("depth")
    @classmethod
    def _clamp_depth(cls, value: int) -> int:
        return clamp(value, DEPTH_RANGE)


class ItemView(BaseModel):
    id: str
    kind: Kind
    text: str
    status: Status
    confidence: float | None = None
    created_at: str
    mentions: list[MentionView] = Field(
        default_factory=empty_list,
        description="The entities it names (a chunk of a file names the file too: `entity` mode on that "
        "id returns the file's every chunk; a chunk of a page is `about` the page's own entity, its role).",
    )

    @classmethod
    def of(cls, hit: Hit) -> ItemView:
        return cls(
            id=hit.id,
            kind=hit.kind,
            text=hit.text,
            status=hit.status,
            confidence=hit.confidence,
            created_at=hit.created_at,
            mentions=hit.mentions,
        )


class AncestorView(ItemView):
    level: int = Field(ge=1, description="Derivation steps from the explained item (its sources are 1).")


class Derivation(BaseModel):
    """``from`` was derived from ``to``."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_id: str = Field(alias="from")
    to_id: str = Field(alias="to")


class DerivedFrom(BaseModel):
    """The ancestry as a DAG: every ancestor once, every derivation link between shown items once."""

    nodes: list[AncestorView]
    edges: list[Derivation]


class GroundingView(BaseModel):
    chunk_id: str
    uri: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = None
    section: str | None = None
    anchor: str | None = None
    version: str | None = None


class LineageExploration(BaseModel):
    """``truncated`` means ancestors exist beyond the applied depth."""

    levels: int
    backend_calls: int = Field(description="Backend requests made (Query, BatchGetItem chunks, reads).")
    round_trips: int = Field(description="Sequential rounds: the item, one per ancestor level, the texts.")
    truncated: bool


class AppliedLineageLimits(BaseModel):
    depth: int


class WhyExplainResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "item": {
                        "id": "acme:p-0063",
                        "kind": "proposition",
                        "text": "payments-gateway must reject charge retries without an Idempotency-Key.",
                        "status": "ACTIVE",
                        "confidence": 0.76,
                        "created_at": "2026-02-22T09:00:00Z",
                    },
                    "derived_from": {
                        "nodes": [
                            {
                                "id": "acme:rec-0040",
                                "kind": "record",
                                "text": "Action item AI-77 | payments-gateway rejects keyless retries",
                                "status": "ACTIVE",
                                "confidence": None,
                                "created_at": "2026-02-21T10:00:00Z",
                                "level": 1,
                            }
                        ],
                        "edges": [{"from": "acme:p-0063", "to": "acme:rec-0040"}],
                    },
                    "grounding": [
                        {"chunk_id": "acme:rec-0040", "uri": "jira://acme/AI-77", "start": 60, "end": 100}
                    ],
                    "supersedes": [],
                    "superseded_by": [],
                    "contradicts": [],
                    "derived_count": 0,
                    "explored": {"levels": 1, "backend_calls": 3, "round_trips": 3, "truncated": True},
                    "applied": {"depth": 1},
                }
            ]
        }
    )

    item: ItemView
    derived_from: DerivedFrom
    grounding: list[GroundingView]
    supersedes: list[ItemView]
    superseded_by: list[ItemView]
    contradicts: list[ItemView] = Field(description="Items it contradicts and items contradicting it.")
    derived_count: int = Field(description="How many items of the context were derived from it.")
    explored: LineageExploration
    applied: AppliedLineageLimits
