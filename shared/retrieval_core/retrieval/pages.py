"""Cutting a ranking into pages that never overlap or skip, even while the index changes.

The first page ranks ``top_k + 1`` deep (one more than it shows, to know whether more exist) and, when
more exist, freezes that ranking under a random cursor id in the cursor store. A later page reads the
frozen ranking and shows its next ``top_k`` positions with each item's current content; an item deleted
meanwhile, or no longer matching the request, is left out and counted as ``gone``. When a page reaches
past what is frozen, the request is ranked again deeper (at least doubling, at least ``window``) and
only items not frozen yet are appended, so what was ranked never moves and nothing appears twice.
Design and costs: docs/STORAGE.md ("Paging").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import BackendUnavailableError
from ..models.cursors import FrozenEntry, FrozenRanking
from ..models.hits import Hit
from ..ports import CursorStore, ItemReader
from .errors import NextTokenExpiredError
from .paging import PagePosition, PageTokens, PagingConfig, fingerprint, new_cursor_id
from .requests import Mode, RetrieveRequest
from .responses import PAGING_ENDS, AppliedLimits, PagingEnd, PagingInfo
from .router import RetrievalRouter, presented

log = logging.getLogger(__name__)


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
        self, router: RetrievalRouter, request: RetrieveRequest, context_id: str, at: PagePosition | None
    ) -> Page:
        if at is None:
            return self._first(router, request, context_id)
        return self._next(router, request, context_id, at)

    def _first(self, router: RetrievalRouter, request: RetrieveRequest, context_id: str) -> Page:
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
        entries = ranking.hits[: self._config.max_depth]
        frozen = FrozenRanking(
            fingerprint=_fingerprint(request),
            arms=ranking.arms,
            entries=tuple(_entry(h) for h in entries),
            complete=ranking.complete or len(ranking.hits) >= self._config.max_depth,
        )
        token = None
        end: PagingEnd | None = None
        if len(entries) > top_k:
            assert self._cursors is not None  # _pageable
            cursor_id = new_cursor_id()
            expires_at = self._clock() + self._config.ttl_seconds
            try:
                self._cursors.save(context_id, cursor_id, frozen, expires_at=expires_at)
            except BackendUnavailableError:
                # The first page does not need the cursor store: answer it, without a next page.
                log.warning("paging cursor not saved; answering without next_token", exc_info=True)
                end = "unavailable"
            else:
                token = self._token(
                    context_id, PagePosition(cursor_id, top_k), frozen.fingerprint, expires_at
                )
        return Page(
            ranking.mode,
            ranking.supported,
            presented(entries[:top_k], request),
            ranking.applied,
            ranking.arms,
            self._info(0, 0, end or (None if token else self._end(frozen, top_k))),
            token,
            ranking.missing_capability,
        )

    def _next(
        self, router: RetrievalRouter, request: RetrieveRequest, context_id: str, at: PagePosition
    ) -> Page:
        assert self._cursors is not None and self._items is not None  # a token was issued: _pageable
        frozen = self._cursors.load(context_id, at.cursor_id, self._clock())
        if frozen is None:
            raise NextTokenExpiredError()
        top_k = request.applied_top_k
        fresh: dict[str, Hit] = {}
        if len(frozen.entries) <= at.offset + top_k and not frozen.complete:
            frozen, fresh = self._extend(router, request, context_id, at, frozen)
        window = frozen.entries[at.offset : at.offset + top_k]
        hits, gone = self._content(router, request, context_id, window, fresh)
        end = at.offset + top_k
        token = None
        if end < len(frozen.entries):
            expires_at = self._clock() + self._config.ttl_seconds
            token = self._token(context_id, PagePosition(at.cursor_id, end), frozen.fingerprint, expires_at)
        where = router.resolved_filter(request)
        return Page(
            request.mode,
            True,
            presented(hits, request),
            router.placed(router.applied(request), where, frozen.arms),
            frozen.arms,
            self._info(at.offset, gone, None if token else self._end(frozen, end)),
            token,
        )

    def _extend(
        self,
        router: RetrievalRouter,
        request: RetrieveRequest,
        context_id: str,
        at: PagePosition,
        frozen: FrozenRanking,
    ) -> tuple[FrozenRanking, dict[str, Hit]]:
        """Rank deeper and append what is not frozen yet; a concurrent extension's result wins."""
        assert self._cursors is not None
        cap = self._config.max_depth
        depth = min(
            cap, max(at.offset + request.applied_top_k + 1, 2 * len(frozen.entries), self._config.window)
        )
        ranking = router.rank(request, depth)
        known = {entry.id for entry in frozen.entries}
        added = tuple(_entry(h) for h in ranking.hits if h.id not in known)
        entries = (frozen.entries + added)[:cap]
        extended = FrozenRanking(
            fingerprint=frozen.fingerprint,
            arms=frozen.arms,
            entries=entries,
            complete=ranking.complete or len(entries) >= cap,
            version=frozen.version + 1,
        )
        expires_at = self._clock() + self._config.ttl_seconds
        if self._cursors.save(context_id, at.cursor_id, extended, expires_at=expires_at):
            return extended, {h.id: h for h in ranking.hits}
        winner = self._cursors.load(context_id, at.cursor_id, self._clock())
        if winner is None:
            raise NextTokenExpiredError()
        return winner, {}

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

    def _token(self, context_id: str, at: PagePosition, request_fingerprint: str, expires_at: int) -> str:
        assert self._tokens is not None
        return self._tokens.issue(context_id, at, request_fingerprint, expires_at)

    def _end(self, frozen: FrozenRanking, reached: int) -> PagingEnd:
        at_cap = reached >= self._config.max_depth or len(frozen.entries) >= self._config.max_depth
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
