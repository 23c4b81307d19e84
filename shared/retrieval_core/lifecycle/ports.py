"""What a rebuild needs from the search engine: numbered generations of an index behind an alias.

The steps are the engine's (create an index, copy changes since a checkpoint, block writes, move the
alias); their order, which is what keeps reads correct and writes whole, is the use case's
(``rebuild.RebuildService``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

Checkpoint = Mapping[int, int]
"""Per shard, the sequence number up to which every change to an index is applied on every copy."""


@dataclass(frozen=True, slots=True)
class Generation:
    """One index behind an alias: what made its vectors, and what it was rebuilt from."""

    index: str
    dimension: int
    embedder: str | None = None
    """The embedder's name when the index records it (indices created before it was recorded: None)."""
    previous: str | None = None
    """The index this one replaced (kept closed for a rollback), None for a first index."""
    switched_at: Checkpoint | None = None
    """This index's checkpoint when the alias moved to it: a rollback copies back what came after."""


class IndexGenerations(Protocol):
    @property
    def embedder(self) -> str:
        """The name of the embedder new vectors come from."""
        ...

    @property
    def dimension(self) -> int:
        """The vector dimension of the current declaration."""
        ...

    def aliases(self, context_id: str | None) -> list[str]:
        """The alias of ``context_id``, or every alias of the deployment when None."""
        ...

    def current(self, alias: str) -> Generation:
        """The index ``alias`` names now."""
        ...

    def create(self, alias: str, previous: str) -> Generation:
        """A new, empty index for ``alias`` from the current declaration, analyser and embedder."""
        ...

    def reopen(self, index: str) -> Generation:
        """A kept (closed) index opened again and writable, for a rollback."""
        ...

    def checkpoint(self, index: str) -> Checkpoint: ...

    def copy(
        self,
        source: str,
        target: str,
        since: Checkpoint | None,
        *,
        reembed: bool,
        progress: Callable[[int], None],
    ) -> int:
        """Copy the documents of ``source`` changed after ``since`` (all when None) into ``target``,
        embedding their text again when ``reembed``; returns how many, reporting the running count."""
        ...

    def count(self, index: str) -> int: ...

    def drop_absent(self, source: str, target: str) -> int:
        """Delete from ``target`` the documents ``source`` no longer holds; returns how many."""
        ...

    def block_writes(self, index: str, blocked: bool) -> None:
        """Refuse (or accept again) writes to ``index``; blocking waits for writes in flight."""
        ...

    def switch(self, alias: str, source: str, target: str, checkpoint: Checkpoint) -> None:
        """Move ``alias`` from ``source`` to ``target`` in one atomic step, recording ``checkpoint``."""
        ...

    def retire(self, index: str) -> None:
        """Close ``index``, keeping it for a rollback (a closed index serves nothing and costs no heap)."""
        ...

    def discard(self, index: str) -> None:
        """Delete an index a failed rebuild created."""
        ...
