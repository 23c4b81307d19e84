"""Response shapes of ``retrieve`` (documented in the OpenAPI spec)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ..models.filters import Filter
from ..models.hit_parts import HIT_PART_FIELDS, HitPart
from ..models.hits import Hit
from ..models.vocabulary import Kind, Status, empty_list
from ..packing.packet import ContextPacket
from ..policy import Receipt
from .config import FusionConfig
from .requests import EchoedMode

FilterPlacement = Literal["in_query", "on_results"]
GRAPH_ARM = "graph"
"""The arm of a graph walk: it follows every edge, and the filter applies to the propositions it returns."""


class AppliedFilter(BaseModel):
    """The filter as used (dates normalised to UTC) and where each arm applied it."""

    expression: dict[str, Any] = Field(description="The normalised filter.")
    arms: dict[str, FilterPlacement] = Field(
        description="Per arm: inside the backend query, or on the propositions a graph walk returned."
    )


InferredAs = Literal["entity", "answer_type", "window", "valid_now", "kind_weight"]


class Inference(BaseModel):
    """One thing auto mode read from the question, and what it became."""

    span: str = Field(description="The words of the question it was read from.")
    start: int = Field(description="Where the span starts in the text (0-based character offset).")
    end: int = Field(description="Where the span ends (exclusive).")
    became: InferredAs = Field(
        description="entity: an entity of the caller's context, whose items and edge propositions join "
        "the ranking as arms; answer_type: the type of entity the question asks for (value: the type), "
        "whose mentions beside a linked entity join as an arm; window: a time window, whose items join "
        "as an arm (a preference, not a filter); valid_now: items valid at that moment join as an arm; "
        "kind_weight: a kind weight."
    )
    value: str = Field(
        description="The entity id, the entity type, the window (from .. to), the moment, or kind=weight."
    )
    confidence: float = Field(ge=0, le=1, description="How sure the reading is (0..1).")
    used: bool = Field(
        default=True,
        description="False when a field of the request said otherwise (entity_id, window, weights), "
        "which always wins.",
    )


class AppliedLimits(BaseModel):
    """The values actually used, after clamping."""

    top_k: int
    depth: int
    min_score: float | None
    statuses: list[Status]
    kinds: list[Kind]
    rank_constant: int
    diversify: bool = Field(
        default=False,
        description="The page is interleaved by kind (diversify, on by default): its scores are then not "
        "in descending order, each kind's best come first. Send diversify: false for score order.",
    )
    pages_apart: bool = Field(
        default=False,
        description="One chunk per document until every ranked document has shown its best "
        "(pages_apart, on by default); a document's other chunks come after, by score.",
    )
    filter: AppliedFilter | None = None
    fusion: FusionConfig | None = Field(default=None, description="hybrid: the fusion used.")
    rerank: str | None = Field(
        default=None,
        description="What reordered the top hits (`mmr(lambda=0.7, depth=30)`, "
        "`bedrock:amazon.rerank-v1:0(depth=30)`), or `skipped: <reason>` when the reranker failed or "
        "ran out of time and the fused order was kept; null when no rerank was asked for.",
    )
    multihop: str | None = Field(
        default=None,
        description="hybrid and auto with hops > 1: what the multi-hop stage did and cost, e.g. "
        "`hops=2 seeds=5 entities=12 fetched=30 linked=4 round_trips=1`, or `skipped: <reason>`; null "
        "when it did not run.",
    )
    expansion_terms: list[str] | None = Field(
        default=None, description="feedback: the terms added to the lexical query, strongest first."
    )
    inferred: list[Inference] | None = Field(
        default=None,
        description="auto: what was read from the question (empty when nothing was, or infer is false); "
        "send entity_id, window or weights to override it, or infer: false to turn it off.",
    )

    def placed(self, where: Filter | None, arms: Sequence[str]) -> AppliedLimits:
        """These limits with the filter echoed and, per arm, where it took effect: inside the backend
        query, or on the propositions a graph walk returned."""
        if where is None:
            return self
        placed: dict[str, FilterPlacement] = {
            arm: "on_results" if arm == GRAPH_ARM else "in_query" for arm in arms
        }
        return self.model_copy(update={"filter": AppliedFilter(expression=where.echo(), arms=placed)})


PagingEnd = Literal["exhausted", "depth_cap", "unpaged"]
PAGING_ENDS: dict[PagingEnd, str] = {
    "exhausted": "Nothing is ranked below this page.",
    "depth_cap": "This page reaches the deepest position a request may page to (max_depth).",
    "unpaged": "This request is not paged (expand_graph answers are one page).",
}


class PagingInfo(BaseModel):
    """Where this page sits in the request's ranking, and why there is no next page when there is none."""

    offset: int = Field(description="The 0-based position of this page's first slot in the ranking.")
    max_depth: int = Field(description="The deepest position any page of a request may reach.")
    gone: int = Field(
        default=0,
        description="Slots of this page whose items were deleted, or stopped matching the request, since "
        "the ranking was frozen (by the second page); they are left out, so the page holds fewer hits.",
    )
    end: PagingEnd | None = Field(
        default=None,
        description="Set when next_token is null: "
        + "; ".join(f"`{name}`: {text}" for name, text in PAGING_ENDS.items()),
    )
    message: str | None = Field(default=None, description="What ``end`` means, in words.")


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
                            "relevance": 0.71,
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
                    "next_token": "p2.eyJvIjo1LCJlIjoxNzc5MjcxMjAwLCJxIjoiOTY2MTRhOWUxZjA5NGY4ODM1YThmZDVk"
                    "ZDIxMjk3YzMifQ.-i_kDxICyXE.O9eU-oUHoYVY_k200mSffIksylLZXuSjp9KPcNW3Hac",
                    "paging": {"offset": 0, "max_depth": 1000, "gone": 0, "end": None, "message": None},
                }
            ]
        }
    )

    mode: EchoedMode
    supported: bool = Field(description="False when the store lacks the capability this mode needs.")
    missing_capability: str | None = None
    arms: list[str] = Field(default_factory=empty_list, description="The retrieval arms that produced hits.")
    hits: list[Hit]
    applied: AppliedLimits
    receipt: Receipt
    context_packet: ContextPacket | None = None
    next_token: str | None = Field(
        default=None,
        description="Send it back with the same body (top_k may change) for the next page; null when "
        "there is none (paging.end says why). Valid for the deployment's paging TTL "
        "(RETRIEVAL_PAGING_TTL_SECONDS, an hour by default), for this context and request only.",
    )
    paging: PagingInfo
    _omitted: frozenset[str] = PrivateAttr(default=frozenset())

    def including(self, include: Sequence[HitPart] | None) -> RetrieveResponse:
        """This answer, to be written with only the hit parts of the request's ``include`` (every part
        when it is not given)."""
        if include is not None:
            self._omitted = frozenset(
                f for part, fields in HIT_PART_FIELDS.items() if part not in include for f in fields
            )
        return self

    def serialisation_exclude(self) -> dict[str, Any] | None:
        """What writing this answer leaves out (``entrypoints.wire``); None for nothing."""
        return {"hits": {"__all__": set(self._omitted)}} if self._omitted else None
