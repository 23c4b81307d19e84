"""Cutting a ranking into pages that never overlap or skip, even while the index changes.

The first page ranks ``top_k + 1`` deep (one more than it shows, to know whether more exist) and writes
nothing: when more exist its token carries a fingerprint of every id it showed. The second page ranks
again, deeper, leaves out what the first page showed and freezes the rest under a random cursor id in
the cursor store, from the position the first page ended at. A later page reads the frozen ranking and
shows its next ``top_k`` positions with each item's current content; an item deleted meanwhile, or no
longer matching the request, is left out and counted as ``gone``. When a page reaches past what is
frozen, the request is ranked again deeper (at least doubling, at least ``window``) and only items
neither frozen nor shown yet are appended, so what was ranked never moves and nothing appears twice.
Design and costs: docs/STORAGE.md ("Paging").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ..models.cursors import FrozenEntry, FrozenRanking
from ..models.hits import Hit
from ..ports import Capabilities, CursorStore, ItemReader
from .config import RetrievalConfig
from .errors import NextTokenExpiredError
from .paging import (
    PagePosition,
    PageTokens,
    PagingConfig,
    fingerprint_bytes,
    fingerprints_from,
    id_fingerprint,
    id_fingerprints,
    new_cursor_id,
)
from .pipeline import Ranking, RankingPipeline
from .plans import AutoPlan, PreparedQuery, expands_graph, reads_the_clock
from .relevance import RELEVANCE, TEXT_ARMS, VECTOR_ARM, RelevanceCalibration, RelevanceModel
from .requests import Mode
from .responses import PAGING_ENDS, AppliedLimits, PagingEnd, PagingInfo


@dataclass(frozen=True, slots=True)
class Page:
    mode: str
    supported: bool
    hits: list[Hit]
    applied: AppliedLimits
    arms: tuple[str, ...]
    paging: PagingInfo
    next_token: str | None = None
    missing_capability: str | None = None


class Pager:
    """Cuts a prepared request's ranking into pages; it owns the ranking pipeline, built once with it."""

    def __init__(
        self,
        *,
        capabilities: Capabilities,
        retrieval: RetrievalConfig,
        tokens: PageTokens | None,
        cursors: CursorStore | None,
        items: ItemReader | None,
        config: PagingConfig,
        clock: Callable[[], int] | None = None,
        pipeline: RankingPipeline | None = None,
    ) -> None:
        """``pipeline``: the container's (else one built here from ``capabilities`` and ``retrieval``);
        ``clock``: whole seconds since the epoch (None: the system clock)."""
        self._pipeline = pipeline or RankingPipeline(capabilities, retrieval)
        self._tokens = tokens
        self._cursors = cursors
        self._items = items
        self._config = config
        self._clock = clock

    @classmethod
    def unpaged(cls, capabilities: Capabilities, retrieval: RetrievalConfig) -> Pager:
        """A pager with no paging configured: every answer is one page (and every token is expired)."""
        return cls(
            capabilities=capabilities,
            retrieval=retrieval,
            tokens=None,
            cursors=None,
            items=None,
            config=PagingConfig(),
            clock=lambda: 0,
        )

    def open_token(self, token: str, context_id: str, fingerprint: str) -> PagePosition:
        """The position ``token`` names, verified against the caller's context and the question's
        fingerprint (``PreparedQuery``): a 4xx before anything is read."""
        if self._tokens is None:
            raise NextTokenExpiredError()  # paging is not configured: no token can still be good
        return self._tokens.open(token, context_id, fingerprint, self._now())

    def page(self, query: PreparedQuery) -> Page:
        """The page ``query.position`` names (the first when None)."""
        if query.position is None:
            return self._first(query) if self._pageable(query) else self._unpaged(query)
        return self._next(query, query.position)

    def _rank(self, query: PreparedQuery, depth: int, *, all_fused: bool = False) -> Ranking:
        return self._pipeline.rank(query, depth, all_fused=all_fused)

    def _unpaged(self, query: PreparedQuery) -> Page:
        """One page of ``top_k``: the first ``top_k`` of the ranking and, with ``expand_graph``, the graph
        arm that hangs below the page it decorates."""
        ranking = self._rank(query, query.top_k)
        hits = presented(ranking.hits[: query.top_k], query)
        if expands_graph(query.plan):
            hits += calibrated(ranking.hits[query.top_k :], query.mode, query.top_k, floor=_last(hits))
        return Page(
            ranking.mode,
            ranking.supported,
            hits,
            ranking.applied,
            ranking.arms,
            self._info(0, 0, "unpaged"),
            missing_capability=ranking.missing_capability,
        )

    def _first(self, query: PreparedQuery) -> Page:
        top_k = query.top_k
        asked_at = self._now() if reads_the_clock(query.plan) else None
        query = _read_at(query, asked_at)
        ranking = self._rank(query, top_k + 1)
        ranked = ranking.hits[: self._config.max_depth]
        shown = ranked[:top_k]
        hits = presented(shown, query)
        token = None
        if len(ranked) > top_k:
            # Nothing is written: the token names what this page showed, and the next page ranks again.
            at = PagePosition(
                top_k, shown=id_fingerprints([h.id for h in shown]), asked_at=asked_at, floor=_least(hits)
            )
            token = self._token(query.context_id, at, query.fingerprint)
        return Page(
            ranking.mode,
            ranking.supported,
            hits,
            ranking.applied,
            ranking.arms,
            self._info(0, 0, None if token else self._end(top_k, len(ranked))),
            token,
            ranking.missing_capability,
        )

    def _next(self, query: PreparedQuery, at: PagePosition) -> Page:
        query = _read_at(query, at.asked_at)
        cursor_id, frozen, fresh = self._frozen(query, at)
        window = frozen.window(at.offset, query.top_k)
        content, gone = self._content(query, window, fresh)
        hits = presented(content, query, at.offset, floor=1.0 if at.floor is None else at.floor)
        end = at.offset + query.top_k
        token = None
        if end < frozen.end:
            following = PagePosition(end, cursor_id, asked_at=at.asked_at, floor=_least(hits, at.floor))
            token = self._token(query.context_id, following, frozen.fingerprint)
        return Page(
            query.mode,
            True,
            hits,
            query.applied.placed(query.where, frozen.arms),
            frozen.arms,
            self._info(at.offset, gone, None if token else self._end(end, frozen.end)),
            token,
        )

    def _frozen(self, query: PreparedQuery, at: PagePosition) -> tuple[str, FrozenRanking, dict[str, Hit]]:
        """The cursor id and frozen ranking the page at ``at`` is cut from, and the hits ranked for it
        just now (whose content needs no read): frozen now at the second page, else read (and extended
        when the page reaches past it)."""
        assert self._cursors is not None  # a token was issued: _pageable
        if at.cursor_id is None:
            cursor_id = new_cursor_id()
            frozen, fresh = self._freeze(query, at)
            if at.offset + query.top_k < frozen.end:  # a later page will read it
                self._cursors.save(query.context_id, cursor_id, frozen, expires_at=self._expiry())
            return cursor_id, frozen, fresh
        stored = self._cursors.load(query.context_id, at.cursor_id, self._now())
        if stored is None:
            raise NextTokenExpiredError()
        if stored.end <= at.offset + query.top_k and not stored.complete:
            return at.cursor_id, *self._extend(query, at.cursor_id, at, stored)
        return at.cursor_id, stored, {}

    def _freeze(self, query: PreparedQuery, at: PagePosition) -> tuple[FrozenRanking, dict[str, Hit]]:
        """The second page's ranking: ranked again, deeper, without what the first page showed, from the
        first page's end on. What was written since ranks among the rest (above the first page's
        boundary: at this page's start); what was deleted is simply not there."""
        ranking = self._rank(query, self._depth(query, at.offset, at.offset), all_fused=True)
        cap = self._config.max_depth
        rest = [h for h in ranking.hits if id_fingerprint(h.id) not in at.shown][: cap - at.offset]
        frozen = FrozenRanking(
            fingerprint=query.fingerprint,
            arms=ranking.arms,
            entries=tuple(_entry(h) for h in rest),
            complete=ranking.complete or at.offset + len(rest) >= cap,
            base=at.offset,
            shown=fingerprint_bytes(at.shown),
        )
        return frozen, {h.id: h for h in rest}

    def _extend(
        self, query: PreparedQuery, cursor_id: str, at: PagePosition, frozen: FrozenRanking
    ) -> tuple[FrozenRanking, dict[str, Hit]]:
        """Rank deeper and append what is neither frozen nor shown yet; a concurrent extension's result
        wins."""
        assert self._cursors is not None
        cap = self._config.max_depth
        ranking = self._rank(query, self._depth(query, at.offset, frozen.end), all_fused=True)
        known = {entry.id for entry in frozen.entries}
        shown = fingerprints_from(frozen.shown)
        added = tuple(
            _entry(h) for h in ranking.hits if h.id not in known and id_fingerprint(h.id) not in shown
        )
        entries = (frozen.entries + added)[: cap - frozen.base]
        extended = FrozenRanking(
            fingerprint=frozen.fingerprint,
            arms=frozen.arms,
            entries=entries,
            complete=ranking.complete or frozen.base + len(entries) >= cap,
            version=frozen.version + 1,
            base=frozen.base,
            shown=frozen.shown,
        )
        if self._cursors.save(query.context_id, cursor_id, extended, expires_at=self._expiry()):
            return extended, {h.id: h for h in ranking.hits}
        winner = self._cursors.load(query.context_id, cursor_id, self._now())
        if winner is None:
            raise NextTokenExpiredError()
        return winner, {}

    def _depth(self, query: PreparedQuery, offset: int, known: int) -> int:
        """How deep a ranking that is frozen ranks: past the page, at least doubling what is known, at
        least ``window``, never past the cap. Hybrid skips the window: it keeps every candidate it
        fused (each arm ``max(candidate_depth, depth)`` deep, so already at least candidate_depth), and
        fusing deeper arms than one request for these positions would fuse other candidates."""
        least = max(offset + query.top_k + 1, 2 * known)
        if query.mode != Mode.HYBRID:
            least = max(least, self._config.window)
        return min(self._config.max_depth, least)

    def _content(
        self, query: PreparedQuery, window: tuple[FrozenEntry, ...], fresh: dict[str, Hit]
    ) -> tuple[list[Hit], int]:
        """The current content of a page's frozen entries, in frozen order, with their frozen scores;
        items deleted since, or no longer matching the request, are left out and counted."""
        assert self._items is not None
        wanted = [entry.id for entry in window if entry.id not in fresh]
        found = dict(fresh)
        if wanted:
            found |= self._items.get_items(query.context_id, wanted, where=query.where)
        statuses, kinds = set(query.applied.statuses), set(query.applied.kinds)
        hits = [
            found[entry.id].model_copy(
                update={"score": entry.score, "signals": entry.signals, "found_by": list(entry.found_by)}
            )
            for entry in window
            if entry.id in found
            and found[entry.id].status in statuses
            and (not kinds or found[entry.id].kind in kinds)
        ]
        return hits, len(window) - len(hits)

    def _pageable(self, query: PreparedQuery) -> bool:
        configured = None not in (self._tokens, self._cursors, self._items)
        return configured and not expands_graph(query.plan)

    def _token(self, context_id: str, at: PagePosition, fingerprint: str) -> str:
        assert self._tokens is not None
        return self._tokens.issue(context_id, at, fingerprint, self._expiry())

    def _now(self) -> int:
        """Whole seconds since the epoch: the given clock's, else the system's (``time.time`` looked up
        at each read, so a patched clock is the one read)."""
        return int(time.time()) if self._clock is None else self._clock()

    def _expiry(self) -> int:
        return self._now() + self._config.ttl_seconds

    def _end(self, reached: int, ranked: int) -> PagingEnd:
        """Why there is no next page, having shown up to position ``reached`` of a ranking known to
        position ``ranked`` (both absolute)."""
        at_cap = max(reached, ranked) >= self._config.max_depth
        return "depth_cap" if at_cap else "exhausted"

    def _info(self, offset: int, gone: int, end: PagingEnd | None) -> PagingInfo:
        message = None if end is None else PAGING_ENDS[end]
        return PagingInfo(
            offset=offset, max_depth=self._config.max_depth, gone=gone, end=end, message=message
        )


def presented(page: list[Hit], query: PreparedQuery, offset: int = 0, *, floor: float = 1.0) -> list[Hit]:
    """A page as the caller sees it: each hit with its calibrated ``relevance`` (read from its place in
    the ranking, ``offset`` being the page's first), then interleaved by kind when ``diversify`` asks
    for it (per page, so a page's members never depend on how the ones before it were cut; a hit keeps
    its relevance wherever diversity places it); none above ``floor``, the least the pages before showed."""
    hits = calibrated(page, query.mode, offset, floor=floor)
    return diversify(hits) if query.applied.diversify else hits


def calibrated(
    hits: list[Hit],
    mode: str,
    offset: int,
    *,
    floor: float = 1.0,
    calibration: RelevanceCalibration | None = None,
) -> list[Hit]:
    """``hits`` (at ``offset`` in their ranking, in ranking order) each with its ``relevance``: the
    mode's fitted model (``relevance.py``) read at the hit, never above ``floor`` or a hit before it
    (a reranked or multi-hop ranking's scores need not descend)."""
    calibration = calibration or RELEVANCE
    model = calibration.models.get(mode) or calibration.models[calibration.fallback]
    found = []
    for position, hit in enumerate(hits, start=offset + 1):
        floor = min(floor, relevance(model, hit, position))
        found.append(hit.model_copy(update={"relevance": floor}))
    return found


def hit_features(score: float, position: int, arm_scores: Mapping[str, float]) -> tuple[float, ...]:
    """What a hit carries at request time, in ``FEATURES`` order: its ranking score (clamped), ln of its
    1-based position, the vector arm's score of it (0 without one) and whether both text arms found it
    (``arm_scores``: each arm that found it, and its score there). The pager and the fit read these."""
    return (
        min(max(score, 0.0), 1.0),
        math.log(position),
        min(max(arm_scores.get(VECTOR_ARM, 0.0), 0.0), 1.0),
        float(all(arm in arm_scores for arm in TEXT_ARMS)),
    )


def log_odds(model: RelevanceModel, features: tuple[float, ...]) -> float:
    """The model's log-odds (the operating shift included) for a hit's ``hit_features``."""
    weights = (model.score, model.log_position, model.similarity, model.both_arms)
    return (
        model.intercept
        + model.operating_shift
        + math.fsum(w * f for w, f in zip(weights, features, strict=True))
    )


def relevance(model: RelevanceModel, hit: Hit, position: int) -> float:
    """The model's relevance of ``hit`` at 1-based ``position`` of its ranking, rounded to 4 places."""
    arm_scores = {arm: signal.score for arm, signal in hit.signals.items()}
    value = log_odds(model, hit_features(hit.score, position, arm_scores))
    return round(1.0 / (1.0 + math.exp(-value)), 4)


def _least(hits: list[Hit], before: float | None = None) -> float | None:
    """The least relevance of ``hits`` and ``before`` (the pages before), None when there is neither."""
    values = [h.relevance for h in hits if h.relevance is not None]
    values += [] if before is None else [before]
    return min(values, default=None)


def _last(hits: list[Hit]) -> float:
    return hits[-1].relevance if hits and hits[-1].relevance is not None else 1.0


def diversify(hits: Sequence[Hit]) -> list[Hit]:
    """Interleave kinds round-robin by rank: each round takes every kind's next best hit, best first."""
    queues: dict[str, list[Hit]] = {}
    for hit in hits:
        queues.setdefault(hit.kind, []).append(hit)
    result: list[Hit] = []
    depth = 0
    while len(result) < len(hits):
        round_hits = [queue[depth] for queue in queues.values() if depth < len(queue)]
        result += sorted(round_hits, key=lambda h: (-h.score, h.id))
        depth += 1
    return result


def _entry(hit: Hit) -> FrozenEntry:
    return FrozenEntry(id=hit.id, score=hit.score, signals=dict(hit.signals), found_by=tuple(hit.found_by))


def _read_at(query: PreparedQuery, asked_at: int | None) -> PreparedQuery:
    """``query`` read at ``asked_at`` (epoch seconds), the moment its first page was read at: a page
    fetched after a month turned reads "last month" as the first page did. Only a question that
    ``plans.reads_the_clock`` has one (its token is bound to the same request)."""
    if asked_at is None:
        return query
    moment = datetime.fromtimestamp(asked_at, UTC)
    assert isinstance(query.plan, AutoPlan)  # only auto reads the clock
    return replace(query, plan=replace(query.plan, now=moment))
