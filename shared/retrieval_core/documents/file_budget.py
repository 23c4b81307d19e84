"""One file's budget from its bytes to the index (``DocumentLimits``): a wall-time deadline that parse,
chunking, embedding and indexing all spend, the chunk count and each chunk's characters. A file past
any of them fails alone, naming the bound (``DocumentRejectedError``); nothing past it is computed."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..models.text_window import TokenCounter
from .chunking import Chunk, Embed
from .errors import DocumentRejectedError
from .limits import DocumentLimits

EMBED_BATCH = 32
"""Texts embedded per call: the deadline is checked between calls, and a call's memory stays small."""


class FileBudget:
    def __init__(self, limits: DocumentLimits, now: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._now = now
        self._deadline = now() + limits.seconds

    def check(self, stage: str) -> None:
        """Refuse the file when its wall time is spent (``stage`` says where it ran out)."""
        if self._now() > self._deadline:
            raise DocumentRejectedError(
                f"took longer than {self._limits.seconds:g} s from its bytes to the index "
                f"(seconds; spent while {stage})"
            )

    def counting(self, count: TokenCounter) -> TokenCounter:
        """``count`` that checks the deadline first: chunking counts every sentence and long word."""

        def counted(text: str) -> int:
            self.check("chunking")
            return count(text)

        return counted

    def embedding(self, embed: Embed) -> Embed:
        """``embed`` in batches of ``EMBED_BATCH``, the deadline checked before each."""

        def embedded(texts: Sequence[str]) -> list[list[float]]:
            vectors: list[list[float]] = []
            for start in range(0, len(texts), EMBED_BATCH):
                self.check("embedding")
                vectors += embed(texts[start : start + EMBED_BATCH])
            return vectors

        return embedded

    def check_chunks(self, chunks: Sequence[Chunk]) -> None:
        """The chunk bounds, before any chunk is embedded or written."""
        if len(chunks) > self._limits.chunks:
            raise DocumentRejectedError(
                f"yields {len(chunks):,} chunks, more than {self._limits.chunks:,} (chunks)"
            )
        longest = max((max(len(c.text), len(c.parent_text or "")) for c in chunks), default=0)
        if longest > self._limits.chunk_characters:
            raise DocumentRejectedError(
                f"has a chunk of {longest:,} characters, more than {self._limits.chunk_characters:,} "
                "(chunk_characters)"
            )
