"""Chunking as a choice, Bedrock Knowledge Bases' four (docs/DOCUMENTS.md, "Chunking"):

- ``fixed``: whole sentences packed up to ``max_tokens``, the next chunk starting ``overlap_percent`` of
  a chunk back. The default is Bedrock's: about 300 tokens, whole sentences, no overlap.
- ``hierarchical``: parents of ``parent_max_tokens`` cut into children of ``child_max_tokens``
  (``overlap_tokens`` shared); children are searched, a hit returns its parent's text.
- ``semantic``: sentences (with ``buffer_size`` neighbours each side) embedded with the deployment's
  embedder; a chunk ends where the distance to the next passes the ``breakpoint_percentile`` of the
  file's distances, or at ``max_tokens``.
- ``none``: one chunk per file.

A chunk never spans two pages. It spans two sections only when one is too small to stand alone: a chunk
under ``FLOOR_TOKENS`` (a reference page's one-line name, a one-sentence note) joins a neighbour on its
page with room for it (fixed and semantic chunking), labelled with the heading path they share and the
anchor where its text starts; chunks with no heading in common never join. Within a section, a last
chunk under the floor takes whole sentences from the one before it (no overlap configured), so a long
section never ends in a scrap. No chunk is longer
than the embedder's window (``models/text_window.py``): an explicit size past it is refused, the default
shrinks to it. Tokens are counted by the caller's ``TokenCounter``: the embedder's own tokenizer where
it is local, else ``estimate_tokens``, which never undercounts the embedders' tokenizers on English prose
(tests/unit/test_document_units.py measures both against MiniLM's).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..models.text_window import TokenCounter, estimate_tokens
from .errors import ChunkingConfigError
from .parsed import Block, ParsedDocument

SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


class ChunkingConfig(BaseModel):
    """One prefix's (or the deployment's) chunking. Unset sizes take Bedrock's defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    strategy: Literal["fixed", "hierarchical", "semantic", "none"] = "fixed"
    max_tokens: int | None = Field(default=None, ge=20, le=8192, description="fixed and semantic (300).")
    overlap_percent: int = Field(default=0, ge=0, le=99, description="fixed: of max_tokens.")
    parent_max_tokens: int = Field(default=1500, ge=20, le=8192, description="hierarchical parents.")
    child_max_tokens: int | None = Field(default=None, ge=20, le=8192, description="hierarchical (300).")
    overlap_tokens: int = Field(default=60, ge=0, le=1000, description="hierarchical children.")
    breakpoint_percentile: int = Field(default=95, ge=50, le=99, description="semantic.")
    buffer_size: int = Field(default=0, ge=0, le=1, description="semantic: neighbours each side.")

    @model_validator(mode="after")
    def _children_fit_parents(self) -> ChunkingConfig:
        if self.child_max_tokens is not None and self.child_max_tokens > self.parent_max_tokens:
            raise ValueError("child_max_tokens must not exceed parent_max_tokens")
        return self

    def search_tokens(self, window: int) -> int:
        """The largest chunk that is searched (fixed, semantic: a chunk; hierarchical: a child), checked
        against the embedder's ``window``: an explicit size past it is an error, the default shrinks."""
        explicit = self.child_max_tokens if self.strategy == "hierarchical" else self.max_tokens
        if explicit is not None and explicit > window:
            raise ChunkingConfigError(
                f"chunks of {explicit} tokens are longer than the embedder's window of {window} tokens"
            )
        return explicit if explicit is not None else min(DEFAULT_TOKENS, window)


DEFAULT_TOKENS = 300
FLOOR_TOKENS = 24
"""About 100 characters: under it a chunk is a scrap (``DECLARE — define a cursor``, ``Default: on.``)
that matches a question's words by its brevity and says little once found."""
SCRAP_CHARACTERS = FLOOR_TOKENS * 12
"""A chunk of at least this many characters is past the floor whatever the counter (a token spans at
most ~12 characters of prose), so only shorter ones are counted."""
DEFAULT_CHUNKING = ChunkingConfig()


@dataclass(frozen=True, slots=True)
class Chunk:
    text: str
    start: int
    end: int
    page: int | None = None
    section: tuple[str, ...] = ()
    metadata: dict[str, Any] | None = None
    parent_text: str | None = None
    """hierarchical: the text a hit on this child returns (its parent's)."""
    anchor: str | None = None
    """The section's anchor in the file (``Block.anchor``)."""


Embed = Callable[[Sequence[str]], list[list[float]]]


def chunk_document(
    parsed: ParsedDocument,
    config: ChunkingConfig,
    *,
    window: int,
    embed: Embed | None = None,
    count_tokens: TokenCounter = estimate_tokens,
) -> list[Chunk]:
    """The file's chunks in reading order, sized by ``count_tokens``. Records (CSV rows) are one chunk
    each, whatever the strategy, cut only when a row is longer than the window."""
    limit = config.search_tokens(window)
    if parsed.records:
        return [
            c
            for block in parsed.blocks
            for c in _pack([block], limit, 0, count_tokens, record=block.metadata)
        ]
    if config.strategy == "none":
        return _whole(parsed.blocks)
    chunks: list[Chunk] = []
    for run in _runs(parsed.blocks):
        match config.strategy:
            case "fixed":
                chunks += _pack(run, limit, limit * config.overlap_percent // 100, count_tokens)
            case "semantic":
                if embed is None:
                    raise ChunkingConfigError("semantic chunking needs the deployment's embedder")
                chunks += _semantic(run, limit, config, embed, count_tokens)
            case "hierarchical":
                for parent in _pack(run, config.parent_max_tokens, 0, count_tokens):
                    child_run = [
                        Block(
                            parent.text,
                            parent.start,
                            parent.end,
                            parent.page,
                            parent.section,
                            None,
                            parent.anchor,
                        )
                    ]
                    chunks += [
                        replace(child, parent_text=parent.text)
                        for child in _pack(child_run, limit, config.overlap_tokens, count_tokens)
                    ]
    return chunks if config.strategy == "hierarchical" else _joined_scraps(chunks, limit, count_tokens)


def _joined_scraps(chunks: list[Chunk], limit: int, count: TokenCounter) -> list[Chunk]:
    """Each chunk under the floor joined to a neighbour on its page that has room for it: the one whose
    heading path shares more with its own (the previous one on a tie, whose text it continues); the
    joined chunk is labelled with the headings they share, at the anchor where its text starts."""
    joined = list(chunks)
    position = 0
    while position < len(joined):
        partner = _partner(joined, position, limit, count) if _is_scrap(joined[position], count) else None
        if partner is None:
            position += 1
            continue
        first = min(position, partner)
        joined[first : first + 2] = [_join_chunks(joined[first], joined[first + 1])]
        position = first  # the joined chunk may still be under the floor
    return joined


def _is_scrap(chunk: Chunk, count: TokenCounter) -> bool:
    return len(chunk.text) < SCRAP_CHARACTERS and count(chunk.text) < FLOOR_TOKENS


def _partner(chunks: list[Chunk], position: int, limit: int, count: TokenCounter) -> int | None:
    scrap, best, shared_best = chunks[position], None, 0
    for neighbour in (position - 1, position + 1):
        if not 0 <= neighbour < len(chunks) or chunks[neighbour].page != scrap.page:
            continue
        shared = len(_common_prefix(scrap.section, chunks[neighbour].section))
        if shared > shared_best and count(scrap.text) + count(chunks[neighbour].text) + 1 <= limit:
            best, shared_best = neighbour, shared
    return best


def _join_chunks(first: Chunk, second: Chunk) -> Chunk:
    section = _common_prefix(first.section, second.section)
    return Chunk(
        f"{first.text}\n\n{second.text}", first.start, second.end, first.page, section, anchor=first.anchor
    )


def _common_prefix(one: tuple[str, ...], other: tuple[str, ...]) -> tuple[str, ...]:
    shared = 0
    while shared < min(len(one), len(other)) and one[shared] == other[shared]:
        shared += 1
    return one[:shared]


def _runs(blocks: list[Block]) -> list[list[Block]]:
    """Consecutive blocks on one page under one section: what one chunk may join."""
    runs: list[list[Block]] = []
    for block in blocks:
        last = runs[-1][-1] if runs else None
        if last is not None and (last.page, last.section, last.anchor) == (
            block.page,
            block.section,
            block.anchor,
        ):
            runs[-1].append(block)
        else:
            runs.append([block])
    return runs


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    start: int
    end: int
    tokens: int


def _sentences(blocks: list[Block], limit: int, count: TokenCounter) -> list[_Sentence]:
    """Each block's sentences with their offsets; a sentence longer than ``limit`` is cut at words."""
    sentences: list[_Sentence] = []
    for block in blocks:
        position = 0
        for piece in [*SENTENCE_END.split(block.text)]:
            if not piece.strip():
                continue
            at = block.text.index(piece, position)
            position = at + len(piece)
            sentences += _cut(piece, block.start + at, limit, count)
    return sentences


def _cut(text: str, start: int, limit: int, count: TokenCounter) -> list[_Sentence]:
    """``text`` as one sentence, or cut at words into pieces of at most ``limit`` tokens (a text's count
    is its words' counts summed: both counters split at whitespace first)."""
    tokens = count(text)
    if tokens <= limit:
        return [_Sentence(text, start, start + len(text), tokens)]
    pieces: list[_Sentence] = []
    words = [(word, count(word.group())) for word in re.finditer(r"\S+", text)]
    begin = 0
    while begin < len(words):
        end, used = begin, 0
        while end < len(words) and used + words[end][1] <= limit:
            used += words[end][1]
            end += 1
        if end == begin:  # one word past the window: keep what fits of it (a token takes a character)
            word = words[begin][0]
            span, at = word.group()[:limit], start + word.start()
            pieces.append(_Sentence(span, at, at + len(span), count(span)))
            begin += 1
            continue
        at = start + words[begin][0].start()
        span = text[words[begin][0].start() : words[end - 1][0].end()]
        pieces.append(_Sentence(span, at, at + len(span), used))
        begin = end
    return pieces


def _pack(
    blocks: list[Block],
    limit: int,
    overlap: int,
    count: TokenCounter,
    record: dict[str, Any] | None = None,
) -> list[Chunk]:
    """Whole sentences up to ``limit`` tokens a chunk; the next starts ``overlap`` tokens back."""
    first = blocks[0]
    sentences = _sentences(blocks, limit, count)
    spans: list[tuple[int, int]] = []
    begin = 0
    while begin < len(sentences):
        end, used = begin, 0
        while end < len(sentences) and used + sentences[end].tokens + (end > begin) <= limit:
            used += sentences[end].tokens + (end > begin)
            end += 1
        end = max(end, begin + 1)
        spans.append((begin, end))
        if end >= len(sentences):
            break
        back, carried = end, 0
        while back - 1 > begin and carried + sentences[back - 1].tokens <= overlap:
            back -= 1
            carried += sentences[back].tokens
        begin = back
    if overlap == 0 and record is None:
        _fill_last(spans, sentences, limit)
    return [_join(sentences[begin:end], first, record) for begin, end in spans]


def _fill_last(spans: list[tuple[int, int]], sentences: list[_Sentence], limit: int) -> None:
    """A last chunk under the floor takes whole sentences from the end of the one before it, while
    that one keeps to the floor and the last to ``limit`` (contiguous chunks: no overlap)."""
    if len(spans) < 2:
        return
    (before, cut), (_, end) = spans[-2], spans[-1]

    def tokens(begin: int, stop: int) -> int:
        return sum(s.tokens for s in sentences[begin:stop]) + stop - begin - 1

    while (
        tokens(cut, end) < FLOOR_TOKENS
        and cut - 1 > before
        and tokens(cut - 1, end) <= limit
        and tokens(before, cut - 1) >= FLOOR_TOKENS
    ):
        cut -= 1
    spans[-2:] = [(before, cut), (cut, end)]


def _join(sentences: list[_Sentence], block: Block, record: dict[str, Any] | None) -> Chunk:
    text = " ".join(s.text for s in sentences)
    return Chunk(
        text, sentences[0].start, sentences[-1].end, block.page, block.section, record, anchor=block.anchor
    )


def _whole(blocks: list[Block]) -> list[Chunk]:
    if not blocks:
        return []
    first = blocks[0]
    text = "\n\n".join(b.text for b in blocks)
    end = blocks[-1].end if all(b.page == first.page for b in blocks) else first.start + len(text)
    return [Chunk(text, first.start, end, first.page, first.section, anchor=first.anchor)]


def _semantic(
    blocks: list[Block], limit: int, config: ChunkingConfig, embed: Embed, count: TokenCounter
) -> list[Chunk]:
    sentences = _sentences(blocks, limit, count)
    if len(sentences) < 3:
        return _pack(blocks, limit, 0, count)
    buffer = config.buffer_size
    windows = [
        " ".join(s.text for s in sentences[max(0, i - buffer) : i + buffer + 1])
        for i in range(len(sentences))
    ]
    vectors = embed(windows)
    distances = [1.0 - sum(a * b for a, b in zip(u, v, strict=True)) for u, v in pairwise(vectors)]
    threshold = _percentile(distances, config.breakpoint_percentile)
    chunks: list[Chunk] = []
    begin, used = 0, 0
    for i, sentence in enumerate(sentences):
        if i > begin and (used + sentence.tokens + 1 > limit or distances[i - 1] > threshold):
            chunks.append(_join(sentences[begin:i], blocks[0], None))
            begin, used = i, 0
        used += sentence.tokens + (i > begin)
    chunks.append(_join(sentences[begin:], blocks[0], None))
    return chunks


def _percentile(values: list[float], percentile: int) -> float:
    ordered = sorted(values)
    rank = (len(ordered) - 1) * percentile / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
