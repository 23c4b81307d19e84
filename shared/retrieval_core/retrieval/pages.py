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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..models.cursors import FrozenEntry, FrozenRanking, id_fingerprint, id_fingerprints
from ..models.hits import Hit
from ..ports import CursorStore, ItemReader
from .errors import NextTokenExpiredError
from .paging import (
    PagePosition,
    PageTokens,
    PagingConfig,
    fingerprint,
    new_cursor_id,
    question_fingerprint,
)
from .requests import Mode, RetrieveRequest
from .responses import PAGING_ENDS, AppliedLimits, PagingEnd, PagingInfo
from .router import RetrievalRouter, presented


@dataclass(frozen=True, slots=True)
class Page:
    mode: Mode
    supported: bool
    hits: list[Hit]
    applied: AppliedLimits
    arms: tuple[str, ...]
    paging: PagingInfo
    next_token: str | None = None
    missing_capability: str | None = None


class Pager:
    def __init__(
        self,
        *,
        tokens: PageTokens | None,
        cursors: CursorStore | None,
        items: ItemReader | None,
        config: PagingConfig,
        clock: Callable[[], int],
    ) -> None:
        self._tokens = tokens
        self._cursors = cursors
        self._items = items
        self._config = config
        self._clock = clock

    def position(self, request: RetrieveRequest, context_id: str) -> PagePosition | None:
        """The position ``request.next_token`` names, verified: raises a 4xx before anything is read."""
        if request.next_token is None:
            return None
        if self._tokens is None:
            raise NextTokenExpiredError()  # paging is not configured: no token can still be good
        return self._tokens.open(request.next_token, context_id, _fingerprint(request), self._clock())

    def page(
        self,
        router: RetrievalRouter,
        request: RetrieveRequest,
        context_id: str,
        at: PagePosition | None,
        question: Mapping[str, Any] | None = None,
    ) -> Page:
        """The page at ``at`` (the first when None). ``question``: the session policy's prepared query
        of this request, when the caller has it, so the first page's token needs no second spelling."""
        if at is None:
            return self._first(router, request, context_id, question)
        return self._next(router, request, context_id, at)

    def _first(
        self,
        router: RetrievalRouter,
        request: RetrieveRequest,
        context_id: str,
        question: Mapping[str, Any] | None,
    ) -> Page:
        top_k = request.applied_top_k
        if not self._pageable(request):
            result = router.route(request)
            info = self._info(0, 0, "unpaged")
            return Page(
                result.mode,
                result.supported,
                result.hits,
                result.applied,
                result.arms,
                info,
                missing_capability=result.missing_capability,
            )
        ranking = router.rank(request, top_k + 1)
        ranked = ranking.hits[: self._config.max_depth]
        shown = ranked[:top_k]
        token = None
        if len(ranked) > top_k:
            # Nothing is written: the token names what this page showed, and the next page ranks again.
            at = PagePosition(top_k, shown=id_fingerprints(h.id for h in shown))
            asked = _fingerprint(request) if question is None else question_fingerprint(question)
            token = self._token(context_id, at, asked)
        return Page(
            ranking.mode,
            ranking.supported,
            presented(shown, request),
            ranking.applied,
            ranking.arms,
            self._info(0, 0, None if token else self._end(top_k, len(ranked))),
            token,
            ranking.missing_capability,
        )

    def _next(
        self, router: RetrievalRouter, request: RetrieveRequest, context_id: str, at: PagePosition
    ) -> Page:
        top_k = request.applied_top_k
        cursor_id, frozen, fresh = self._frozen(router, request, context_id, at)
        window = frozen.window(at.offset, top_k)
        hits, gone = self._content(router, request, context_id, window, fresh)
        end = at.offset + top_k
        token = None
        if end < frozen.end:
            token = self._token(context_id, PagePosition(end, cursor_id), frozen.fingerprint)
        where = router.resolved_filter(request)
        return Page(
            request.mode,
            True,
            presented(hits, request),
            router.placed(router.applied(request), where, frozen.arms),
            frozen.arms,
            self._info(at.offset, gone, None if token else self._end(end, frozen.end)),
            token,
        )

    def _frozen(
        self, router: RetrievalRouter, request: RetrieveRequest, context_id: str, at: PagePosition
    ) -> tuple[str, FrozenRanking, dict[str, Hit]]:
        """The cursor id and frozen ranking the page at ``at`` is cut from, and the hits ranked for it
        just now (whose content needs no read): frozen now at the second page, else read (and extended
        when the page reaches past it)."""
        assert self._cursors is not None  # a token was issued: _pageable
        top_k = request.applied_top_k
        if at.cursor_id is None:
            cursor_id = new_cursor_id()
            frozen, fresh = self._freeze(router, request, at)
            if at.offset + top_k < frozen.end:  # a later page will read it
                self._cursors.save(context_id, cursor_id, frozen, expires_at=self._expiry())
            return cursor_id, frozen, fresh
        stored = self._cursors.load(context_id, at.cursor_id, self._clock())
        if stored is None:
            raise NextTokenExpiredError()
        if stored.end <= at.offset + top_k and not stored.complete:
            return at.cursor_id, *self._extend(router, request, context_id, at.cursor_id, at, stored)
        return at.cursor_id, stored, {}

    def _freeze(
        self, router: RetrievalRouter, request: RetrieveRequest, at: PagePosition
    ) -> tuple[FrozenRanking, dict[str, Hit]]:
        """The second page's ranking: ranked again, deeper, without what the first page showed, from the
        first page's end on. What was written since ranks among the rest (above the first page's
        boundary: at this page's start); what was deleted is simply not there."""
        ranking = router.rank(request, self._depth(request, at.offset, at.offset), all_fused=True)
        cap = self._config.max_depth
        rest = [h for h in ranking.hits if id_fingerprint(h.id) not in at.shown][: cap - at.offset]
        frozen = FrozenRanking(
            fingerprint=_fingerprint(request),
            arms=ranking.arms,
            entries=tuple(_entry(h) for h in rest),
            complete=ranking.complete or at.offset + len(rest) >= cap,
            base=at.offset,
            shown=at.shown,
        )
        return frozen, {h.id: h for h in rest}

    def _extend(
        self,
        router: RetrievalRouter,
        request: RetrieveRequest,
        context_id: str,
        cursor_id: str,
        at: PagePosition,
        frozen: FrozenRanking,
    ) -> tuple[FrozenRanking, dict[str, Hit]]:
        """Rank deeper and append what is neither frozen nor shown yet; a concurrent extension's result
        wins."""
        assert self._cursors is not None
        cap = self._config.max_depth
        ranking = router.rank(request, self._depth(request, at.offset, frozen.end), all_fused=True)
        known = {entry.id for entry in frozen.entries}
        added = tuple(
            _entry(h) for h in ranking.hits if h.id not in known and id_fingerprint(h.id) not in frozen.shown
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
        if self._cursors.save(context_id, cursor_id, extended, expires_at=self._expiry()):
            return extended, {h.id: h for h in ranking.hits}
        winner = self._cursors.load(context_id, cursor_id, self._clock())
        if winner is None:
            raise NextTokenExpiredError()
        return winner, {}

    def _depth(self, request: RetrieveRequest, offset: int, known: int) -> int:
        """How deep a ranking that is frozen ranks: past the page, at least doubling what is known, at
        least ``window``, never past the cap. Hybrid skips the window: it keeps every candidate it
        fused (each arm ``max(candidate_depth, depth)`` deep, so already at least candidate_depth), and
        fusing deeper arms than one request for these positions would fuse other candidates."""
        least = max(offset + request.applied_top_k + 1, 2 * known)
        if request.mode is not Mode.HYBRID:
            least = max(least, self._config.window)
        return min(self._config.max_depth, least)

    def _content(
        self,
        router: RetrievalRouter,
        request: RetrieveRequest,
        context_id: str,
        window: tuple[FrozenEntry, ...],
        fresh: dict[str, Hit],
    ) -> tuple[list[Hit], int]:
        """The current content of a page's frozen entries, in frozen order, with their frozen scores;
        items deleted since, or no longer matching the request, are left out and counted."""
        assert self._items is not None
        wanted = [entry.id for entry in window if entry.id not in fresh]
        found = dict(fresh)
        if wanted:
            found |= self._items.get_items(context_id, wanted, where=router.resolved_filter(request))
        statuses, kinds = set(request.statuses), set(request.kinds or ())
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

    def _pageable(self, request: RetrieveRequest) -> bool:
        configured = None not in (self._tokens, self._cursors, self._items)
        return configured and not request.expand_graph

    def _token(self, context_id: str, at: PagePosition, request_fingerprint: str) -> str:
        assert self._tokens is not None
        return self._tokens.issue(context_id, at, request_fingerprint, self._expiry())

    def _expiry(self) -> int:
        return self._clock() + self._config.ttl_seconds

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


def _fingerprint(request: RetrieveRequest) -> str:
    body = request.model_dump(mode="json", exclude_none=True)
    body["depth"] = request.applied_depth
    return fingerprint(body)


def _entry(hit: Hit) -> FrozenEntry:
    return FrozenEntry(id=hit.id, score=hit.score, signals=dict(hit.signals), found_by=tuple(hit.found_by))
