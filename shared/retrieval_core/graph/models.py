"""Request and response shapes of ``graph_path``. Out-of-range limits are clamped, not rejected, and the
response reports the limits it applied; a limit that is not an integer (``true``, ``"3"``) is rejected."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from ..models.limits import DEPTH_RANGE, PATHS_RANGE, DoorModel, clamp
from ..models.vocabulary import Status


class GraphPathRequest(DoorModel):
    """How the caller asks for paths between two entities of their context."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    from_id: str = Field(
        alias="from", min_length=1, max_length=512, description="Start entity id (acme:person/alice-chen)."
    )
    to_id: str = Field(alias="to", min_length=1, max_length=512, description="End entity id.")
    max_depth: StrictInt = Field(default=3, description="Most hops a path may have; clamped to 1..5.")
    max_paths: StrictInt = Field(default=1, description="How many shortest paths to return; clamped to 1..5.")
    statuses: tuple[Status, ...] = Field(
        default=(Status.ACTIVE,),
        min_length=1,
        description="Follow only edges whose proposition has one of these statuses (default ACTIVE).",
    )

    @field_validator("max_depth")
    @classmethod
    def _clamp_depth(cls, value: int) -> int:
        return clamp(value, DEPTH_RANGE)

    @field_validator("max_paths")
    @classmethod
    def _clamp_paths(cls, value: int) -> int:
        return clamp(value, PATHS_RANGE)

    @field_validator("statuses")
    @classmethod
    def _distinct_statuses(cls, value: tuple[Status, ...]) -> tuple[Status, ...]:
        return tuple(dict.fromkeys(value))


class PathEdge(BaseModel):
    """One hop of a path, oriented along the path, with the proposition that connects its ends."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_id: str = Field(alias="from")
    to_id: str = Field(alias="to")
    proposition_id: str
    text: str
    confidence: float | None = None
    status: Status


class GraphPath(BaseModel):
    entity_ids: list[str]
    edges: list[PathEdge]

    @property
    def length(self) -> int:
        return len(self.edges)


class PathExploration(BaseModel):
    """How much of the caller's graph the search looked at; depends on nothing outside that context."""

    nodes_visited: int
    hops: int
    backend_calls: int = Field(description="Backend requests made (each Query page, each read).")
    round_trips: int = Field(description="Sequential rounds: one per frontier level, plus the text read.")


class AppliedPathLimits(BaseModel):
    max_depth: int
    max_paths: int


class GraphPathResponse(BaseModel):
    """``truncated`` means the search stopped early (node cap): an unfound path may still exist."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "found": True,
                    "truncated": False,
                    "paths": [
                        {
                            "entity_ids": [
                                "acme:customer/quanta-games",
                                "acme:service/fraud-scoring",
                                "acme:datastore/feature-store",
                            ],
                            "edges": [
                                {
                                    "from": "acme:customer/quanta-games",
                                    "to": "acme:service/fraud-scoring",
                                    "proposition_id": "acme:p-0043",
                                    "text": "Quanta Games relies on fraud-scoring for screening purchases.",
                                    "confidence": 0.95,
                                    "status": "ACTIVE",
                                },
                                {
                                    "from": "acme:service/fraud-scoring",
                                    "to": "acme:datastore/feature-store",
                                    "proposition_id": "acme:p-0021",
                                    "text": "fraud-scoring reads device features from feature-store.",
                                    "confidence": 0.82,
                                    "status": "ACTIVE",
                                },
                            ],
                        }
                    ],
                    "explored": {"nodes_visited": 5, "hops": 2, "backend_calls": 3, "round_trips": 3},
                    "applied": {"max_depth": 3, "max_paths": 1},
                }
            ]
        }
    )

    found: bool
    truncated: bool
    paths: list[GraphPath]
    explored: PathExploration
    applied: AppliedPathLimits
