"""Kind weights and the cut: each candidate's score times its kind's weight, in order, above
``min_score``, pages kept apart (``pages_apart``), and no deeper than the ranking goes (unless it keeps
every fused candidate, or its arms are whole). Before any hit is built: only the kept ones ever are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ...models.vocabulary import Kind
from ..fusion import RescorableT, ScoredT, order
from .base import Job, Pool, Ranked, Step

CHUNK_MARK = ":doc/"
"""A file's chunk is ``<context>:doc/<file>#<position>`` (``documents.chunk_items.FileRef.chunk_id``):
its page is the id before the last ``#``. Any other item is a page of its own."""


def weighed_and_cut(job: Job, pool: Pool) -> Step[Pool]:
    ranked = order(weigh(pool.fused, pool.kind_weights))
    min_score = job.query.applied.min_score
    above = ranked if min_score is None else [f for f in ranked if f.score >= min_score]
    if job.query.applied.pages_apart:  # the cut keeps other pages before a page's second chunk
        above = pages_apart(above)
    kept = above if job.all_fused or pool.whole else above[: job.size]
    return Step(replace(pool, fused=kept, cut=len(above) < len(ranked), truncated=len(kept) < len(above)))


def weigh(hits: Sequence[RescorableT], weights: Mapping[Kind, float]) -> list[RescorableT]:
    """Multiply each hit's score by its kind's weight (default 1)."""
    if not weights:
        return list(hits)
    return [h.rescored(h.score * float(weights.get(h.kind, 1.0))) for h in hits]


def kept_apart(job: Job, ranked: Ranked) -> Step[Ranked]:
    """Pages kept apart again after a stage that reordered the built hits (a rerank, a walk)."""
    return Step(replace(ranked, hits=pages_apart(ranked.hits)))


def page_of(item_id: str) -> str:
    """The page (file) an item belongs to: a chunk's file id, else the item itself."""
    if CHUNK_MARK not in item_id:
        return item_id
    page, mark, _ = item_id.rpartition("#")
    return page if mark else item_id


def pages_apart(hits: Sequence[ScoredT]) -> list[ScoredT]:
    """Every page's best chunk in rank order, then the pages' other chunks in rank order: no page shows a
    second chunk before every page has shown its first (the rest stay reachable further down)."""
    firsts: list[ScoredT] = []
    others: list[ScoredT] = []
    seen: set[str] = set()
    for hit in hits:
        page = page_of(hit.id)
        (others if page in seen else firsts).append(hit)
        seen.add(page)
    return firsts + others if others else list(hits)
