"""Packs one retrieval's hits into a budgeted, citable context packet.

Guarantees (see README.md): items are a subsequence of the hits in their order and at their scores;
the rendered text, header included, never exceeds the budget as measured by the same counter the
packet reports; every hit left out is listed in ``dropped`` with a reason; a hit is only dropped for
budget when its smallest form did not fit beside the hits ranked above it (rank priority), and never
while that form would still fit in the finished packet (no waste).
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
so this bounds the work a book-length hit costs while leaving far more than any budget can hold."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    rank: int
    hit: Hit
    source_id: str
    sentences: list[str]
    relevance: list[int]
    """Sentence indices, most relevant to the task first (only computed when compressing)."""


@dataclass(frozen=True, slots=True)
class _Block:
    text: str
    compressed: bool = False
    truncated: bool = False


class _Forms:
    """The blocks a candidate can be rendered as, from its smallest form (its floor) to whole."""

    def __init__(self, layout: Layout, compress: bool) -> None:
        self.layout = layout
        self.compress = compress

    def floor(self, candidate: _Candidate) -> _Block:
        """Compressing, the most relevant sentence alone: a compressed hit always shows its best
        evidence. Otherwise the whole block."""
        if self.compress and candidate.sentences:
            return self.sentences(candidate, [candidate.relevance[0]])
        return self.whole(candidate)

    def whole(self, candidate: _Candidate) -> _Block:
        body = self.layout.whole_body(candidate.hit.text, candidate.sentences)
        return _Block(self.layout.block(candidate.hit, candidate.source_id, body))

    def sentences(self, candidate: _Candidate, kept: list[int]) -> _Block:
        body = self.layout.sentence_body(candidate.sentences, kept)
        block = self.layout.block(candidate.hit, candidate.source_id, body)
        return _Block(block, compressed=len(kept) < len(candidate.sentences))

    def can_grow(self, candidate: _Candidate) -> bool:
        """Only compressed passages grow back: a brief line is one sentence, an uncompressed hit whole."""
        return self.compress and self.layout.shape == "passages" and len(candidate.sentences) > 1


class _Packer:
    """The chosen block of each packed hit, by rank; every change is checked against the true length of
    the whole rendered packet, never an estimate."""

    def __init__(self, layout: Layout, counter: LengthCounter, budget: int) -> None:
        self.layout = layout
        self.counter = counter
        self.budget = budget
        self.chosen: dict[int, _Block] = {}
        self.used = counter.count(layout.text([]))

    def text(self) -> str:
        return self._render(self.chosen)

    def try_put(self, rank: int, block: _Block) -> bool:
        """Add ``block`` for ``rank`` (or replace its current block) if the packet still fits."""
        trial = {**self.chosen, rank: block}
        used = self.counter.count(self._render(trial))
        if used > self.budget:
            return False
        self.chosen, self.used = trial, used
        return True

    def grow(self, candidate: _Candidate, forms: _Forms) -> None:
        """Give a packed hit as much of what is left as it can use: whole if that fits, else its most
        relevant sentences, each added while the packet still fits."""
        if self.used >= self.budget or self.try_put(candidate.rank, forms.whole(candidate)):
            return
        kept = [candidate.relevance[0]]
        for index in candidate.relevance[1:SENTENCES_CONSIDERED]:
            if self.try_put(candidate.rank, forms.sentences(candidate, [*kept, index])):
                kept.append(index)
                if self.used >= self.budget:
                    return

    def truncate(self, candidate: _Candidate) -> bool:
        """Add the longest prefix of the candidate that fits; binary search, every probe truly counted."""
        source = self.layout.truncation_source(candidate.hit.text, candidate.sentences)
        low, high, found = 1, len(source), False
        while low <= high:
            middle = (low + high) // 2
            cut = prefix(source, middle).rstrip()
            block = self.layout.block(candidate.hit, candidate.source_id, cut + ELLIPSIS) if cut else None
            if block is None or self.try_put(candidate.rank, _Block(block, truncated=True)):
                found = found or block is not None
                low = middle + 1
            else:
                high = middle - 1
        return found

    def _render(self, blocks: Mapping[int, _Block]) -> str:
        return self.layout.text([blocks[rank].text for rank in sorted(blocks)])


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


def check_header_fits(options: PackOptions, query_text: str | None = None) -> None:
    """Raise ``PacketHeaderTooLargeError`` when the packet's header alone overflows its budget: a
    request can be refused for it before anything is retrieved."""
    _start(options, options.task or query_text)


def _start(options: PackOptions, task: str | None) -> tuple[Layout, LengthCounter, _Packer]:
    layout = Layout(options.shape, task, cite_uri=options.cite_uri)
    counter = counter_for(options)
    packer = _Packer(layout, counter, options.budget)
    if packer.used > options.budget:
        raise PacketHeaderTooLargeError(
            f"The packet header alone needs {packer.used} {counter.unit}, more than the budget of "
            f"{options.budget}; raise {options.budget_field} or shorten pack.task.",
            field=options.budget_field,
        )
    return layout, counter, packer


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
    layout, counter, packer = _start(options, task)

    reasons: dict[int, DropReason] = dict.fromkeys(_duplicates(hits), "duplicate")
    candidates = [
        _candidate(rank, hit, source_ids[hit.id], task, options.compress)
        for rank, hit in enumerate(hits)
        if rank not in reasons
    ]
    forms = _Forms(layout, options.compress)
    reasons |= _admit(candidates, packer, forms, options.max_items or len(candidates))
    # Growth, best first: what is left goes to the top hits' further sentences before the lower hits'.
    for candidate in candidates:
        if candidate.rank in packer.chosen and forms.can_grow(candidate):
            packer.grow(candidate, forms)

    if not packer.chosen and candidates:  # not even the top hit's smallest form fits: cut it to fit
        top = candidates[0]
        if packer.truncate(top):
            del reasons[top.rank]

    return _packet(hits, source_ids, packer, counter.unit, reasons)


def _admit(
    candidates: Sequence[_Candidate], packer: _Packer, forms: _Forms, limit: int
) -> dict[int, DropReason]:
    """Admission, best first: each hit in its smallest form, so the budget holds as many of the best hits
    as it can before any of it goes to length. Returns why each hit not admitted was left out."""
    reasons: dict[int, DropReason] = {}
    for candidate in candidates:
        if len(packer.chosen) >= limit:
            reasons[candidate.rank] = "max_items"
        elif not packer.try_put(candidate.rank, forms.floor(candidate)):
            reasons[candidate.rank] = "budget"
    return reasons


def _packet(
    hits: Sequence[Hit],
    source_ids: Mapping[str, str],
    packer: _Packer,
    unit: str,
    reasons: Mapping[int, DropReason],
) -> ContextPacket:
    """The finished packet: the packer's blocks by rank, and every hit left out with its reason."""
    return ContextPacket(
        text=packer.text(),
        unit=unit,
        budget=packer.budget,
        used=packer.used,
        items=[
            PackedItem(
                id=hits[rank].id,
                source_id=source_ids[hits[rank].id],
                kind=hits[rank].kind,
                score=hits[rank].score,
                truncated=block.truncated,
                compressed=block.compressed,
                **_where(hits[rank]),
                via=_via(hits[rank], source_ids),
            )
            for rank, block in sorted(packer.chosen.items())
        ],
        dropped=[
            DroppedItem(id=hits[p].id, source_id=source_ids[hits[p].id], reason=reasons[p])
            for p in sorted(reasons)
        ],
        n_candidates=len(hits),
    )


def _where(hit: Hit) -> dict[str, str | None]:
    """A packed item's citation: the hit's URI, section and link."""
    location = hit.location
    if location is None:
        return {"uri": None, "section": None, "url": None}
    return {"uri": location.uri, "section": location.section, "url": location.url}


def _via(hit: Hit, source_ids: Mapping[str, str]) -> list[str] | None:
    """A multi-hop hit's path in the packet's citation labels (a hop from a hit left out: its id)."""
    if not hit.path:
        return None
    return [f"{source_ids.get(hop.from_id, hop.from_id)} > {hop.entity} ({hop.link})" for hop in hit.path]


def _candidate(rank: int, hit: Hit, source_id: str, task: str | None, compress: bool) -> _Candidate:
    sentences = split_sentences(hit.text)
    relevance = by_relevance(sentences, task)[:SENTENCES_CONSIDERED] if compress else []
    return _Candidate(rank, hit, source_id, sentences, relevance)
