"""One retrieve request, checked and resolved once, at the door, into its mode's plan.

What each mode searches with is one typed, immutable plan per mode, made once from the validated request
(by the mode's builder below, which its entry in ``retrieval.modes`` names) and carried by the
``PreparedQuery``. Arms and stages read their mode's plan, never the request: what a request means
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

``prepare`` raises every 4xx a request can earn before the session policy counts it or a backend is
read: a filter the index cannot apply exactly, a query vector of the wrong dimension, a packet whose
header alone overflows its budget, a ``next_token`` that is altered, foreign, expired or bound to another
question. What it resolves is what everything downstream reads, and nothing re-derives it: the plan, the
filter against the declared metadata types, the clamped limits, the ranking options (the request's over
the deployment's), the question's one spelling (the session policy's dedup key is computed from it) and
the fingerprint a ``next_token`` is bound to, and the page the token names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from ..context import CallerContext
from ..errors import InvalidRequestError
from ..models.filters import Filter, resolve
from ..models.limits import DEPTH_RANGE, TOP_K_RANGE, clamp
from ..models.vocabulary import Kind
from ..policy.query import CONTROL_FIELDS, PreparedQuestion, canonical_key, normal_form
from ..ports import TimeWindow
from ..understanding.kinds import kind_hints
from ..understanding.multihop import reads_as_multihop
from .config import FusionConfig, RetrievalConfig
from .feedback import FeedbackOptions
from .paging import PagePosition
from .requests import Mode, RetrieveRequest, Window
from .rerank import RerankOptions
from .responses import AppliedLimits

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
    return None if request.vector is None else tuple(map(float, request.vector))


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
    """``plan`` as the kind of plan the arms of its mode take (``modes`` gives each mode its own
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


PRESENTATION_FIELDS = frozenset({"pack", "include"})
"""Fields that shape the answer (its packet, the parts of each hit), not the question: like the policy's
control fields they never change the dedup key."""
PAGE_FIELDS = frozenset({"top_k", "next_token"})
"""Fields a continuation may change: the page, never what is ranked (they stay out of the fingerprint)."""

OpenToken = Callable[[str, str, str], PagePosition]
"""``(next_token, context_id, fingerprint) -> position``: the pager's check of a token."""
PlanOf = Callable[[RetrieveRequest], Plan]
"""How the request's mode plans a validated request (its ``retrieval.modes.ModeSpec``)."""


@dataclass(frozen=True, slots=True)
class Tuning:
    """A request's ranking options: the deployment's retrieval config with the request's on top."""

    fusion: FusionConfig
    rerank: RerankOptions
    feedback: FeedbackOptions | None
    """None: one pass, no feedback."""

    reranks: bool
    """Whether the ranking is reranked: a reranker is asked for, and the mode ranks by relevance."""

    @classmethod
    def of(cls, request: RetrieveRequest, config: RetrievalConfig) -> Tuning:
        fusion = config.fusion if request.fusion is None else request.fusion.applied_to(config.fusion)
        feedback = request.feedback or config.feedback
        if feedback is not None and not feedback.enabled:
            feedback = None
        rerank = request.rerank or config.rerank
        # A graph walk's order is its hop distance: there is no relevance to the text to rerank by.
        reranks = rerank.method != "none" and request.mode != Mode.GRAPH_WALK
        return cls(fusion, rerank, feedback, reranks)


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """A request as the ranker, the pager and the policy read it."""

    request: RetrieveRequest
    """The validated request: the session policy's question and the packet are made from it; nothing
    that ranks reads it (``plan`` says what to search)."""
    context: CallerContext
    plan: Plan
    """What the mode searches with (``retrieval.plans``)."""
    where: Filter | None
    """The filter resolved against the declared metadata types (None: no filter)."""
    tuning: Tuning
    applied: AppliedLimits
    """The limits and options in force, before the filter is echoed with where each arm applied it."""
    question: PreparedQuestion
    """The question in the session policy's normal form: the dedup key's one spelling."""
    fingerprint: str
    """What ranks (the question less its page fields): a ``next_token`` is bound to it."""
    position: PagePosition | None
    """Where the page starts: None for a first page."""
    # Read by every stage and the pager: fields, not properties computed at each read.

    mode: str
    context_id: str
    top_k: int
    """The page's size (``applied.top_k``)."""


def prepare(
    request: RetrieveRequest,
    context: CallerContext,
    *,
    config: RetrievalConfig,
    dimension: int | None,
    open_token: OpenToken,
    plan_of: PlanOf,
) -> PreparedQuery:
    """``request`` checked and resolved for ``context``; ``dimension`` is the embedder's (None: no embedder,
    so a caller's vector is taken as it is), ``open_token`` the pager's token check, ``plan_of`` its
    mode's planning."""
    where = None if request.filter is None else resolve(request.filter, config.metadata)
    if request.vector is not None and dimension is not None and len(request.vector) != dimension:
        raise InvalidRequestError(
            f"vector: expected {dimension} dimensions, got {len(request.vector)}", field="vector"
        )
    if request.pack is not None:
        from ..packing.packer import check_header_fits  # only requests that ask for a packet need it

        check_header_fits(request.pack, request.text)
    tuning = Tuning.of(request, config)
    applied = limits(request, tuning)
    question = question_of(request, applied)
    fingerprint = canonical_key(question, leaving_out=PAGE_FIELDS)
    position = None
    if request.next_token is not None:
        position = open_token(request.next_token, context.context_id, fingerprint)
    return PreparedQuery(
        request=request,
        context=context,
        plan=plan_of(request),
        where=where,
        tuning=tuning,
        applied=applied,
        question=question,
        fingerprint=fingerprint,
        position=position,
        mode=request.mode,
        context_id=context.context_id,
        top_k=applied.top_k,
    )


def question_of(request: RetrieveRequest, applied: AppliedLimits) -> PreparedQuestion:
    """The question the request asks, with the ``applied`` clamps, in the session policy's normal form."""
    asked: dict[str, Any] = request.model_dump(
        mode="json", exclude=set(CONTROL_FIELDS | PRESENTATION_FIELDS), exclude_none=True
    )
    asked["top_k"] = applied.top_k
    asked["depth"] = applied.depth
    return normal_form(asked)


def limits(request: RetrieveRequest, tuning: Tuning) -> AppliedLimits:
    return AppliedLimits(
        top_k=clamp(request.top_k, TOP_K_RANGE),
        depth=clamp(request.depth, DEPTH_RANGE),
        min_score=None if request.min_score is None else float(request.min_score),
        statuses=list(dict.fromkeys(request.statuses)),
        kinds=list(dict.fromkeys(request.kinds or ())),
        rank_constant=tuning.fusion.rank_constant,
        diversify=interleaves(request),
        pages_apart=request.pages_apart,
        fusion=tuning.fusion if request.mode in (Mode.HYBRID, Mode.AUTO) else None,
    )


def interleaves(request: RetrieveRequest) -> bool:
    """Whether a page is interleaved by kind: as ``diversify`` says, except that an auto question that
    names a kind ("which runbook ...") and leaves ``diversify`` unsent is not (interleaving would push
    the kind it asked for down the page). A function of the request alone, so every page agrees."""
    if not request.diversify:
        return False
    inferring = request.mode == Mode.AUTO and request.infer and "diversify" not in request.model_fields_set
    return not (inferring and kind_hints(request.text or ""))
