"""What each mode searches with: one typed, immutable plan per mode, made once at the door from the
validated request (by the mode's builder below, which its entry in ``retrieval.modes`` names) and carried
by the ``PreparedQuery``. Arms and stages read their mode's plan, never the request: what a request means
(auto's hops, a window as a ``TimeWindow``, the text a mode without one reranks by) is decided here, once.

    lexical      LexicalPlan    text
    vector       VectorPlan     text, the caller's own vector
    hybrid       HybridPlan     text, vector, hops, expand_graph
    auto         AutoPlan       text, vector, hops, infer, now, entity_id, window
    entity       EntityPlan     entity_id
    temporal     TemporalPlan   window
    graph_walk   GraphWalkPlan  entity_id

Every plan is a ``Plan``: the request's ``text`` (a reranker reads it in every mode but a graph walk) and
its kind ``weights``; a mode's arms take their own kind of plan (``plan_as``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from ..models.limits import clamp
from ..models.vocabulary import Kind
from ..ports import TimeWindow
from ..understanding.multihop import reads_as_multihop
from .requests import RetrieveRequest, Window

HOPS_RANGE = (1, 3)
P = TypeVar("P", bound="Plan")


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What every mode's plan holds; a mode's own plan subclasses it."""

    text: str
    weights: Mapping[Kind, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class LexicalPlan(Plan):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbeddedPlan(Plan):
    """A plan with a vector arm: the caller's own query vector, or None for the embedder's."""

    vector: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class VectorPlan(EmbeddedPlan):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class FusedPlan(EmbeddedPlan):
    """Text arms fused, then ``hops`` passages deep along page links (1: text search alone)."""

    hops: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class HybridPlan(FusedPlan):
    expand_graph: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoPlan(FusedPlan):
    infer: bool = True
    now: datetime | None = None
    """The moment relative time is read at (None: the clock's, fixed by the first page)."""
    entity_id: str | None = None
    window: TimeWindow | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityPlan(Plan):
    entity_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TemporalPlan(Plan):
    window: TimeWindow


@dataclass(frozen=True, slots=True, kw_only=True)
class GraphWalkPlan(Plan):
    entity_id: str


def _text(request: RetrieveRequest) -> dict[str, Any]:
    """The fields every plan takes from the request."""
    return {"text": request.text or "", "weights": dict(request.weights)}


def _vector(request: RetrieveRequest) -> tuple[float, ...] | None:
    return None if request.vector is None else tuple(float(v) for v in request.vector)


# Each mode's plan of a validated request (``RetrieveRequest`` guarantees each mode's required fields).


def lexical_plan(request: RetrieveRequest) -> LexicalPlan:
    return LexicalPlan(**_text(request))


def vector_plan(request: RetrieveRequest) -> VectorPlan:
    return VectorPlan(**_text(request), vector=_vector(request))


def hybrid_plan(request: RetrieveRequest) -> HybridPlan:
    hops, expand = _hops(request, inferred=1), request.expand_graph
    return HybridPlan(**_text(request), vector=_vector(request), hops=hops, expand_graph=expand)


def auto_plan(request: RetrieveRequest) -> AutoPlan:
    multihop = request.infer and reads_as_multihop(request.text or "")
    return AutoPlan(
        **_text(request),
        vector=_vector(request),
        hops=_hops(request, inferred=2 if multihop else 1),
        infer=request.infer,
        now=request.now,
        entity_id=request.entity_id,
        window=None if request.window is None else _window(request.window),
    )


def entity_plan(request: RetrieveRequest) -> EntityPlan:
    return EntityPlan(**_text(request), entity_id=request.entity_id or "")


def temporal_plan(request: RetrieveRequest) -> TemporalPlan:
    assert request.window is not None  # guaranteed by RetrieveRequest
    return TemporalPlan(**_text(request), window=_window(request.window))


def graph_walk_plan(request: RetrieveRequest) -> GraphWalkPlan:
    return GraphWalkPlan(**_text(request), entity_id=request.entity_id or "")


def _hops(request: RetrieveRequest, *, inferred: int) -> int:
    """The request's ``hops`` (clamped), else what its mode infers."""
    return inferred if request.hops is None else clamp(request.hops, HOPS_RANGE)


def _window(window: Window) -> TimeWindow:
    return TimeWindow(window.start, window.end)


def plan_as(plan: Plan, kind: type[P]) -> P:
    """``plan`` as the kind of plan the arms of its mode take (``modes`` routes each mode to its own
    arms, so another kind is a routing bug)."""
    if not isinstance(plan, kind):
        raise TypeError(f"{type(plan).__name__} is not a {kind.__name__}")
    return plan


def expands_graph(plan: Plan) -> bool:
    """Whether the graph arm hangs below the page (hybrid's ``expand_graph``: one page, no token)."""
    return isinstance(plan, HybridPlan) and plan.expand_graph


def reads_the_clock(plan: Plan) -> bool:
    """Whether the ranking reads relative time at the request's own moment: an ``auto`` question that
    did not say ``now``."""
    return isinstance(plan, AutoPlan) and plan.now is None and plan.infer
