"""An in-memory ``IndexGenerations``: indices of documents with per-write sequence numbers, write blocks,
closed indices and aliases, enough to check the rebuild's order of steps without a search engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from retrieval_core.lifecycle.ports import Checkpoint, Generation


class BlockedError(Exception):
    """A write reached an index whose writes are blocked."""


@dataclass
class FakeIndex:
    generation: Generation
    documents: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    seq_no: int = -1
    blocked: bool = False
    closed: bool = False


class FakeGenerations:
    def __init__(self, embedder: str = "local:a", dimension: int = 4) -> None:
        self._embedder = embedder
        self._dimension = dimension
        self.indices: dict[str, FakeIndex] = {}
        self.alias: dict[str, str] = {}
        self.on_copy: Callable[[str], None] = lambda _: None
        self.reembedded: list[str] = []
        self.copied: list[str] = []
        """Every document id a copy wrote, in order (a document copied twice is listed twice)."""
        self.created = 0

    # -- what tests use to set up and write -------------------------------------------------------
    def add(self, alias: str, generation: Generation) -> None:
        self.indices[generation.index] = FakeIndex(generation)
        self.alias[alias] = generation.index

    def write(self, alias: str, doc_id: str, text: str) -> None:
        self._put(self.alias[alias], doc_id, {"id": doc_id, "text": text})

    def delete(self, alias: str, doc_id: str) -> None:
        index = self.indices[self.alias[alias]]
        if index.blocked:
            raise BlockedError(index.generation.index)
        index.documents.pop(doc_id, None)
        index.seq_no += 1

    def texts(self, index: str) -> dict[str, str]:
        return {i: doc["text"] for i, (_, doc) in self.indices[index].documents.items()}

    def _put(self, name: str, doc_id: str, doc: dict[str, Any]) -> None:
        index = self.indices[name]
        if index.blocked or index.closed:
            raise BlockedError(name)
        index.seq_no += 1
        index.documents[doc_id] = (index.seq_no, doc)

    # -- the port ---------------------------------------------------------------------------------
    @property
    def embedder(self) -> str:
        return self._embedder

    @property
    def dimension(self) -> int:
        return self._dimension

    def aliases(self, context_id: str | None) -> list[str]:
        return sorted(a for a in self.alias if context_id is None or a.endswith(f".{context_id}"))

    def current(self, alias: str) -> Generation:
        return self.indices[self.alias[alias]].generation

    def create(self, alias: str, previous: str) -> Generation:
        self.created += 1
        generation = Generation(f"{alias}.v2-{self.created}", self._dimension, self._embedder, previous)
        self.indices[generation.index] = FakeIndex(generation)
        return generation

    def reopen(self, index: str) -> Generation:
        self.indices[index].closed = self.indices[index].blocked = False
        return self.indices[index].generation

    def checkpoint(self, index: str) -> Checkpoint:
        return {0: self.indices[index].seq_no}

    def copy(
        self,
        source: str,
        target: str,
        since: Checkpoint | None,
        *,
        reembed: bool,
        progress: Callable[[int], None],
    ) -> int:
        after = -1 if since is None else since[0]
        changed = [(i, doc) for i, (seq, doc) in self.indices[source].documents.items() if seq > after]
        for doc_id, doc in changed:
            self._put(target, doc_id, doc)
            self.copied.append(doc_id)
            progress(len(changed))
        if reembed:
            self.reembedded += [doc_id for doc_id, _ in changed]
        self.on_copy(target)
        return len(changed)

    def count(self, index: str) -> int:
        return len(self.indices[index].documents)

    def drop_absent(self, source: str, target: str) -> int:
        stale = set(self.indices[target].documents) - set(self.indices[source].documents)
        for doc_id in stale:
            del self.indices[target].documents[doc_id]
        return len(stale)

    def block_writes(self, index: str, blocked: bool) -> None:
        self.indices[index].blocked = blocked

    def switch(self, alias: str, source: str, target: str, checkpoint: Checkpoint) -> None:
        assert self.alias[alias] == source
        generation = self.indices[target].generation
        self.indices[target].generation = Generation(
            target, generation.dimension, generation.embedder, generation.previous, dict(checkpoint)
        )
        self.alias[alias] = target

    def retire(self, index: str) -> None:
        self.indices[index].closed = True

    def discard(self, index: str) -> None:
        del self.indices[index]
