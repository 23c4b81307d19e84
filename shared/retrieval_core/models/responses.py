"""Response shapes of ``retrieve`` (documented in the OpenAPI spec)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..packing import ContextPacket
from ..policy import Receipt
from .hits import Hit
from .item import Kind, Status
from .requests import Mode


class AppliedLimits(BaseModel):
    """The values actually used, after clamping."""

    top_k: int
    depth: int
    min_score: float | None
    statuses: list[Status]
    kinds: list[Kind]
    rank_constant: int


class RetrieveResponse(BaseModel):
    mode: Mode
    supported: bool = Field(description="False when the store lacks the capability this mode needs.")
    missing_capability: str | None = None
    arms: list[str] = Field(default_factory=list, description="The retrieval arms that produced hits.")
    hits: list[Hit]
    applied: AppliedLimits
    receipt: Receipt
    context_packet: ContextPacket | None = None
