"""What flows through the ranking pipeline, and the one shape every stage has.

A stage is ``(job, value) -> Step(value, notes)``: it reads its options from the ``Job`` (the prepared
query and how deep this ranking goes), returns the value it made and, in ``notes``, what the response's
``applied`` echo should say it did. No stage writes anywhere else. The values, in pipeline order:
``SearchQuery`` (what the arms search with) -> ``Searched`` (each arm's candidates) -> ``Pool`` (fused
candidates, not built yet) -> ``Ranked`` (response hits).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, Protocol, TypedDict, TypeVar

from ...models.hits import Candidate, Hit
from ...models.vocabulary import Kind
from ...ports import Ahead, Expansion, SearchFilters
from ..feedback import FeedbackOptions, FeedbackText
from ..fusion import Fused
from ..plans import Plan, PreparedQuery
from ..responses import Inference

T = TypeVar("T")


class StageNotes(TypedDict, total=False):
    """What stages report for the response's ``applied`` (only the keys a stage set)."""

    rerank: str | None
    multihop: str | None
    expansion_terms: list[str] | None
    inferred: list[Inference] | None


@dataclass(frozen=True, slots=True)
class Step(Generic[T]):
    """A stage's result: the value it made and its notes for the ``applied`` echo."""

    value: T
    notes: StageNotes = field(default_factory=StageNotes)


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """What the arms search with: the text, the query vector once embedded (None: not yet, or never for
    a mode without a vector arm) and the lexical arm's expansion terms."""

    text: str
    vector: list[float] | None = None
    expansion: Expansion = ()


@dataclass(frozen=True, slots=True)
class FirstPass:
    """A feedback first pass's top hits as feedback reads them. ``texts`` None: the arms have no lexical
    query to expand; ``vectors`` None: no vector to move; ``vector``: the query's own, if the first pass
    embedded it."""

    texts: Sequence[FeedbackText] | None
    vectors: Sequence[Sequence[float]] | None
    vector: list[float] | None = None


SingleArm = Literal["built", "raw", "by_best"]
"""How one arm (``Searched.fuse`` False) is ranked: ``built``: its candidates wrap hits already built
(entity, temporal, a graph walk), each keeping its own score and signals; ``raw``: by the arm's scores,
each hit carrying its rank and score there as its signal (vector); ``by_best``: the same with the scores
divided by the best one (lexical: BM25 has no fixed range), the raw score staying in the signal."""


@dataclass(frozen=True, slots=True)
class Searched:
    """Every arm's candidates, best first. ``asked``: how deep each arm was asked (an arm that returned
    fewer is exhausted); None: the arms are whole (a graph walk), nothing ranks below them. ``fuse``:
    several arms to fuse; False: one arm, ranked by its own scores."""

    arms: Mapping[str, Sequence[Candidate]]
    asked: int | None
    fuse: bool
    arm_weights: Mapping[str, float] = field(default_factory=dict)
    """Weights of arms beyond the text arms (auto's focus arms)."""
    kind_weights: Mapping[Kind, float] | None = None
    """None: the request's ``weights``."""
    single: SingleArm = "built"
    vector: list[float] | None = None
    """The query vector the arms searched with, when they had one (later stages search with it too)."""
    named: Mapping[str, float] = field(default_factory=dict)
    """The entities the question names (auto), each with how sure its link is: a walk starts there."""
    ahead: Ahead | None = None
    """A walk's first fetch, made ahead of the walk in the same round trip as auto's focus arms (the
    walk uses it only if it asks exactly that)."""


@dataclass(frozen=True, slots=True)
class Pool:
    """Ranked candidates before their hits are built (only the ones kept ever are)."""

    fused: list[Fused[Candidate]]
    arms: tuple[str, ...]
    kind_weights: Mapping[Kind, float]
    exhausted: bool
    """Every arm returned fewer candidates than it was asked for, or is whole."""
    whole: bool = False
    cut: bool = False
    """``min_score`` cut the tail (everything below scores lower still)."""
    truncated: bool = False
    """Fewer were kept than ranked."""


@dataclass(frozen=True, slots=True)
class Ranked:
    """Response hits, best first, and the arms that found them."""

    hits: list[Hit]
    arms: tuple[str, ...]
    text: str = ""
    """What the arms searched for, and with what vector (None: none), for stages that search again."""
    vector: list[float] | None = None
    named: Mapping[str, float] = field(default_factory=dict)
    """The entities the question names, by link confidence (``Searched.named``)."""
    ahead: Ahead | None = None
    """``Searched.ahead``."""


class Arms(Protocol):
    """A mode's searches (``retrieval.arms`` holds each mode's own)."""

    def check(self, job: Job) -> None:
        """Raise ``CapabilityMissingError`` when a capability the job needs is absent, before any read."""
        ...

    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        """The feedback first pass's top hits, or None when these arms take no feedback."""
        ...

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]: ...


@dataclass(frozen=True, slots=True)
class Job:
    """One ranking: the prepared query, its arms, and the filters every arm applies (``filters.size``:
    how deep the ranking goes). What stages read of the query is copied out once, when the pipeline
    makes the job: plain fields, not properties read again at every stage."""

    query: PreparedQuery
    arms: Arms
    filters: SearchFilters
    all_fused: bool
    """Keep every fused candidate, not just ``filters.size`` (a frozen ranking keeps them all)."""
    mode: str
    plan: Plan
    context_id: str
    size: int
    """How deep the ranking goes (``filters.size``)."""


class Stage(Protocol[T]):
    def __call__(self, job: Job, value: T, /) -> Step[T]: ...
