"""Packs one retrieval's hits into a budgeted, citable context packet.

Guarantees (see README.md): items are a subsequence of the hits in their order and at their scores;
the rendered text, header included, never exceeds the budget as measured by the same counter the
packet reports; every hit left out is listed in ``dropped`` with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..models.hits import Hit
from .counting import LengthCounter, counter_for
from .errors import PacketHeaderTooLargeError, SourceIdMissingError
from .options import PackOptions
from .packet import ContextPacket, DroppedItem, DropReason, PackedItem
from .render import ELLIPSIS, Layout, prefix
from .sentences import by_relevance, split_sentences

SENTENCES_CONSIDERED = 64
"""Compression tries at most this many of an item's most relevant sentences: each try is a true count,
so this bounds the work a book-length hit costs while leaving far more than any share can hold."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    hit: Hit
    source_id: str
    sentences: list[str]


class _Packer:
    """Accumulates blocks, checking each against the true length of the whole rendered packet."""

    def __init__(self, layout: Layout, counter: LengthCounter, budget: int, task: str | None) -> None:
        self.layout = layout
        self.counter = counter
        self.budget = budget
        self.task = task
        self.blocks: list[str] = []
        self.items: list[PackedItem] = []
        self.used = counter.count(layout.text([]))

    def place(self, candidate: _Candidate, compress: bool, slots_left: int) -> bool:
        """Add the candidate whole, or (compressing) reduced to its most relevant sentences."""
        hit, sentences = candidate.hit, candidate.sentences
        whole = self.layout.block(hit, candidate.source_id, self.layout.whole_body(hit.text, sentences))
        if not compress:
            return self._add_if_fits(candidate, whole)
        share = (self.budget - self.used) // slots_left
        if self._within(whole, share):
            return self._add(candidate, whole)
        kept: list[int] = []
        best: str | None = None
        for index in by_relevance(sentences, self.task)[:SENTENCES_CONSIDERED]:
            block = self.layout.block(
                hit, candidate.source_id, self.layout.sentence_body(sentences, [*kept, index])
            )
            if self._within(block, share):
                kept.append(index)
                best = block
        if best is None:
            return False
        return self._add(candidate, best, compressed=len(kept) < len(sentences))

    def truncate(self, candidate: _Candidate) -> bool:
        """Add the longest prefix of the candidate that fits; binary search, every probe truly counted."""
        source = self.layout.truncation_source(candidate.hit.text, candidate.sentences)
        low, high, best = 1, len(source), None
        while low <= high:
            middle = (low + high) // 2
            cut = prefix(source, middle).rstrip()
            block = self.layout.block(candidate.hit, candidate.source_id, cut + ELLIPSIS) if cut else None
            if block is None or self._fits(block):
                best = block or best
                low = middle + 1
            else:
                high = middle - 1
        return best is not None and self._add(candidate, best, truncated=True)

    def _within(self, block: str, share: int) -> bool:
        return self.counter.count(block) <= share and self._fits(block)

    def _fits(self, block: str) -> bool:
        return self.counter.count(self.layout.text([*self.blocks, block])) <= self.budget

    def _add_if_fits(self, candidate: _Candidate, block: str) -> bool:
        return self._fits(block) and self._add(candidate, block)

    def _add(
        self, candidate: _Candidate, block: str, truncated: bool = False, compressed: bool = False
    ) -> bool:
        hit = candidate.hit
        self.blocks.append(block)
        self.items.append(
            PackedItem(
                id=hit.id,
                source_id=candidate.source_id,
                kind=hit.kind,
                score=hit.score,
                truncated=truncated,
                compressed=compressed,
            )
        )
        self.used = self.counter.count(self.layout.text(self.blocks))
        return True


def _duplicates(hits: Sequence[Hit]) -> set[int]:
    """Positions of hits whose id or whitespace/case-normalised text already appeared earlier."""
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    repeated: set[int] = set()
    for position, hit in enumerate(hits):
        text_key = " ".join(hit.text.split()).casefold()
        if hit.id in seen_ids or text_key in seen_texts:
            repeated.add(position)
        seen_ids.add(hit.id)
        seen_texts.add(text_key)
    return repeated


def pack_hits(
    hits: Sequence[Hit],
    source_ids: Mapping[str, str],
    options: PackOptions,
    query_text: str | None = None,
) -> ContextPacket:
    """Pack ``hits`` (already decided and ordered by retrieval) into a packet within ``options``' budget.

    ``source_ids`` maps each hit id to its citation label; ``options.task`` (else ``query_text``) is
    what the header names and what ``compress`` ranks sentences against.
    """
    if any(hit.id not in source_ids for hit in hits):
        raise SourceIdMissingError()
    task = options.task or query_text
    layout = Layout(options.shape, task)
    counter = counter_for(options)
    packer = _Packer(layout, counter, options.budget, task)
    if packer.used > options.budget:
        raise PacketHeaderTooLargeError(
            f"The packet header alone needs {packer.used} {counter.unit}, more than the budget of "
            f"{options.budget}; raise {options.budget_field} or shorten pack.task.",
            field=options.budget_field,
        )

    candidates = [_Candidate(hit, source_ids[hit.id], split_sentences(hit.text)) for hit in hits]
    reasons: dict[int, DropReason] = dict.fromkeys(_duplicates(hits), "duplicate")
    eligible = [position for position in range(len(hits)) if position not in reasons]
    limit = options.max_items or len(eligible)
    for rank, position in enumerate(eligible):
        slots_left = min(limit - len(packer.items), len(eligible) - rank)
        if slots_left <= 0:
            reasons[position] = "max_items"
        elif not packer.place(candidates[position], options.compress, slots_left):
            reasons[position] = "budget"

    if not packer.items and eligible:  # nothing fits whole: give the top hit all the room, cut if need be
        top = candidates[eligible[0]]
        if packer.place(top, options.compress, 1) or packer.truncate(top):
            del reasons[eligible[0]]

    return ContextPacket(
        text=layout.text(packer.blocks),
        unit=counter.unit,
        budget=options.budget,
        used=packer.used,
        items=packer.items,
        dropped=[
            DroppedItem(id=hits[p].id, source_id=candidates[p].source_id, reason=reasons[p])
            for p in sorted(reasons)
        ],
        n_candidates=len(hits),
    )
