"""Response shapes of ``retrieve`` (documented in the OpenAPI spec)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models.hits import Hit
from ..models.item import Kind, Status
from ..packing import ContextPacket
from ..policy import Receipt
from .requests import Mode

FilterPlacement = Literal["in_query", "on_results"]


class AppliedFilter(BaseModel):
    """The filter as used (dates normalised to UTC) and where each arm applied it."""

    expression: dict[str, Any] = Field(description="The normalised filter.")
    arms: dict[str, FilterPlacement] = Field(
        description="Per arm: inside the backend query, or on the propositions a graph walk returned."
    )


class AppliedLimits(BaseModel):
    """The values actually used, after clamping."""

    top_k: int
    depth: int
    min_score: float | None
    statuses: list[Status]
    kinds: list[Kind]
    rank_constant: int
    filter: AppliedFilter | None = None


class RetrieveResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "mode": "hybrid",
                    "supported": True,
                    "missing_capability": None,
                    "arms": ["lexical", "vector"],
                    "hits": [
                        {
                            "id": "acme:rec-0039",
                            "kind": "record",
                            "text": "Change request CHG-5521 | HSM key ceremony for card PIN encryption",
                            "score": 1.0,
                            "signals": {
                                "lexical": {"rank": 1, "score": 20.98},
                                "vector": {"rank": 1, "score": 0.77},
                            },
                            "status": "ACTIVE",
                            "confidence": None,
                            "created_at": "2026-05-12T14:00:00Z",
                            "mentions": [
                                {
                                    "entity_id": "acme:service/card-issuing",
                                    "name": "card-issuing",
                                    "type": "Service",
                                    "role": None,
                                }
                            ],
                            "provenance": {"source_ids": [], "grounding_uris": [], "supersedes": []},
                            "found_by": ["lexical", "vector"],
                        }
                    ],
                    "applied": {
                        "top_k": 5,
                        "depth": 1,
                        "min_score": None,
                        "statuses": ["ACTIVE"],
                        "kinds": [],
                        "rank_constant": 10,
                    },
                    "receipt": {
                        "sequence": 1,
                        "query_key": "96614a9e1f094f8835a8fd5dd21297c3",
                        "session_id": "agent-run-42",
                        "requested_at": "2026-05-20T09:00:00Z",
                        "completed_at": "2026-05-20T09:00:00Z",
                        "source_ids": ["S1"],
                        "extensions": {},
                        "failed_effects": [],
                    },
                    "context_packet": None,
                }
            ]
        }
    )

    mode: Mode
    supported: bool = Field(description="False when the store lacks the capability this mode needs.")
    missing_capability: str | None = None
    arms: list[str] = Field(default_factory=list, description="The retrieval arms that produced hits.")
    hits: list[Hit]
    applied: AppliedLimits
    receipt: Receipt
    context_packet: ContextPacket | None = None
