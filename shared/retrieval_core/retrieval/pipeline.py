"""The ranking pipeline: one declared sequence of stages that every mode runs, with its own arms.

    arms (the mode's, ``arms``) -> feedback -> search -> fusion -> kind weights, pages apart and cut
    -> build -> rerank -> multi-hop -> pages apart -> graph expansion
                                        and then, per page (``pager``): page -> diversify

Each stage is a small unit, ``(job, value) -> Step(value, notes)`` (``stages.base``), configured from
the prepared query the ``Job`` carries; its notes are merged into the response's ``applied`` here,
and whether the ranking is complete is ``complete``, the one rule for every mode. The sequence is
data (``STAGES``): adding a stage is one module under ``stages/`` and one line there, and a test may run
the pipeline with one more (``Stages.with_hit_stage``) through the real handler (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from ..models.hits import Hit
from ..ports import Capabilities, SearchFilters
from .config import RetrievalConfig
from .errors import CapabilityMissingError
from .fusion import built
from .modes import MODES, Modes
from .plans import FusedPlan, PreparedQuery, expands_graph
from .responses import AppliedLimits
from .stages.base import Job, Pool, Ranked, Searched, SearchQuery, Stage, StageNotes, Step
from .stages.cut import kept_apart, weighed_and_cut
from .stages.feedback import pseudo_relevance_feedback
from .stages.fusion import fused
from .stages.graph_expansion import GraphExpansion
from .stages.multihop import MultiHop
from .stages.rerank import Reranking

T = TypeVar("T")

StageFactory = Callable[[Capabilities, RetrievalConfig], Stage[T]]
"""Builds a stage once per container from what the deployment can do and its retrieval config."""

Applies = Callable[[Job], bool]
"""Whether a stage has work in a job, read from its plan and tuning: a stage that has none is never
entered (a plain hybrid request runs no rerank, walk or expansion code)."""


def always(job: Job) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class StageEntry(Generic[T]):
    """One line of the pipeline: how the stage is built, and when it runs."""

    build: StageFactory[T]
    when: Applies = always


def fixed(stage: Stage[T], when: Applies = always) -> StageEntry[T]:
    """A stage that needs nothing from the deployment."""
    return StageEntry(lambda capabilities, config: stage, when)


@dataclass(frozen=True, slots=True)
class Stages:
    """The pipeline's declared sequence, by the value each group of stages works on."""

    query: tuple[StageEntry[SearchQuery], ...]
    pool: tuple[StageEntry[Pool], ...]
    hits: tuple[StageEntry[Ranked], ...]

    def with_hit_stage(self, factory: StageFactory[Ranked], when: Applies = always) -> Stages:
        """These stages with one more after the last hit stage."""
        return replace(self, hits=(*self.hits, StageEntry(factory, when)))


STAGES = Stages(
    query=(fixed(pseudo_relevance_feedback, when=lambda job: job.query.tuning.feedback is not None),),
    pool=(fixed(weighed_and_cut),),
    hits=(
        StageEntry(
            lambda capabilities, config: Reranking(capabilities),
            lambda job: job.query.tuning.reranks,
        ),
        StageEntry(
            lambda capabilities, config: MultiHop(capabilities, config.multihop),
            lambda job: isinstance(job.plan, FusedPlan) and job.plan.hops > 1,
        ),
        # The cut kept pages apart; a stage that reorders hits (above) may have brought a page's chunks
        # together again (the graph arm below hangs under the page, as ranked).
        fixed(kept_apart, when=lambda job: job.query.applied.pages_apart and reorders(job)),
        StageEntry(
            lambda capabilities, config: GraphExpansion(capabilities, config.expansion),
            lambda job: expands_graph(job.plan),
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class Ranking:
    """A request's ranked candidates before they are cut into pages."""

    mode: str
    supported: bool
    hits: list[Hit]
    applied: AppliedLimits
    complete: bool
    missing_capability: str | None = None
    arms: tuple[str, ...] = field(default=())


class RankingPipeline:
    """Built once per container (the pager holds it); every request's context and options travel in its
    ``PreparedQuery``."""

    def __init__(
        self,
        capabilities: Capabilities,
        config: RetrievalConfig,
        stages: Stages = STAGES,
        modes: Modes = MODES,
    ) -> None:
        self._arms = modes.arms(capabilities, config)
        self._query_stages = _built(stages.query, capabilities, config)
        self._pool_stages = _built(stages.pool, capabilities, config)
        self._hit_stages = _built(stages.hits, capabilities, config)

    def rank(self, query: PreparedQuery, depth: int, *, all_fused: bool = False) -> Ranking:
        """The request's ranking to ``depth``, best first, undiversified; ``complete`` when nothing ranks
        below it. Fused modes fuse each arm's ``max(candidate_depth, depth)`` and build hits for the
        first ``depth`` fused, or with ``all_fused`` for every fused candidate (a frozen ranking keeps
        them all: ranking deeper instead would fuse other candidates)."""
        job = self._job(query, depth, all_fused)
        try:
            job.arms.check(job)
            ranked, pool, notes = self._run(job)
        except CapabilityMissingError as missing:
            return Ranking(query.mode, False, [], query.applied, True, missing_capability=str(missing))
        echoed = query.applied.model_copy(update=dict(notes)).placed(query.where, ranked.arms)
        return Ranking(query.mode, True, ranked.hits, echoed, complete(pool), arms=ranked.arms)

    def _job(self, query: PreparedQuery, depth: int, all_fused: bool) -> Job:
        if query.tuning.reranks:
            depth = max(depth, query.tuning.rerank.depth)  # the pool is the same however deep a page ranks
        applied = query.applied
        filters = SearchFilters(
            kinds=tuple(applied.kinds), statuses=tuple(applied.statuses), size=depth, where=query.where
        )
        arms = self._arms[query.mode]
        return Job(query, arms, filters, all_fused, query.mode, query.plan, query.context_id, depth)

    def _run(self, job: Job) -> tuple[Ranked, Pool, StageNotes]:
        notes = StageNotes()
        text = SearchQuery(job.plan.text)
        text = _through(self._query_stages, job, text, notes)
        searched = job.arms.search(job, text)
        notes.update(searched.notes)
        pool = _through(self._pool_stages, job, _noted(fused(job, searched.value), notes), notes)
        vector = searched_vector(searched, text)
        first = Ranked(
            built(pool.fused), pool.arms, text.text, vector, searched.value.named, searched.value.ahead
        )
        ranked = _through(self._hit_stages, job, first, notes)
        return ranked, pool, notes


def reorders(job: Job) -> bool:
    """Whether a hit stage reorders the built hits: a rerank, or a walk."""
    return job.query.tuning.reranks or (isinstance(job.plan, FusedPlan) and job.plan.hops > 1)


def complete(pool: Pool) -> bool:
    """Whether nothing ranks below the pool: the one rule every mode's ranking follows."""
    return not pool.truncated and (pool.cut or pool.exhausted)


def searched_vector(searched: Step[Searched], query: SearchQuery) -> list[float] | None:
    return searched.value.vector if searched.value.vector is not None else query.vector


BuiltStage = tuple[Stage[T], Applies]


def _built(
    entries: Sequence[StageEntry[T]], capabilities: Capabilities, config: RetrievalConfig
) -> tuple[BuiltStage[T], ...]:
    return tuple((entry.build(capabilities, config), entry.when) for entry in entries)


def _through(stages: Sequence[BuiltStage[T]], job: Job, value: T, notes: StageNotes) -> T:
    for stage, applies in stages:
        if applies(job):
            value = _noted(stage(job, value), notes)
    return value


def _noted(step: Step[T], notes: StageNotes) -> T:
    notes.update(step.notes)
    return step.value
