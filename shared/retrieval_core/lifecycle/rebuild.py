"""Rebuild an index without downtime, and roll it back: the use case ``retrieval rebuild`` and the
rebuild function share (docs/CLUSTER.md#rebuilding-an-index).

A rebuild of one alias:

1. create the new index from the current declaration, analyser and embedder (no alias yet: nothing
   reads or writes it but the rebuild);
2. copy every document of the old index into it (embedding the text again when the embedder changed),
   then copy again what changed since the copy began, a few rounds, each shorter than the last
   (**replay**: writes keep landing in the old index, which readers still use, and each round copies
   those after the last round's checkpoint);
3. block writes to the old index (waiting for writes in flight), copy the last changes, delete what was
   deleted meanwhile, and verify both hold the same number of documents;
4. move the alias in one atomic step and close the old index (kept for ``--rollback``).

Readers see the old index, complete, until the alias moves, then the new one, complete. Writers refused
by the short block of step 3 are retried by the writer until the alias names the new index
(``adapters.opensearch.writer``). A failure before step 4 deletes the new index and lifts the block:
the old index stays as it was. A rollback is the same move in reverse: the kept index is opened and
receives what was written since the switch, then the alias moves back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import RetrievalError
from .ports import Checkpoint, Generation, IndexGenerations

# Catch-up rounds before the write block: each copies what arrived during the one before, so the
# block lasts as long as copying the last round's changes, whatever the index's size.
CATCH_UP_ROUNDS = 3
# A round that copied no more than this many changes is the last before the block.
QUIET_CHANGES = 100


class RebuildError(RetrievalError):
    """A rebuild or rollback could not complete; the alias still names the index it named before."""

    code = "rebuild_failed"


class RebuildCountMismatchError(RebuildError):
    """After the final copy the new index does not hold what the old one holds: nothing was switched."""


class NothingToRollBackError(RebuildError):
    """The alias's index was not made by a rebuild, or the index it replaced was deleted."""


class EmbedderMismatchError(RebuildError):
    """Vectors must be computed again for an index whose embedder is not the one configured."""


@dataclass(frozen=True, slots=True)
class Switch:
    """One alias moved: from which index to which, how many documents it holds, and whether their
    vectors were computed again."""

    alias: str
    source: str
    target: str
    documents: int
    reembedded: bool


Progress = Callable[[str], None]


class RebuildService:
    def __init__(self, generations: IndexGenerations, progress: Progress = lambda _: None) -> None:
        self._generations = generations
        self._progress = progress

    def rebuild(self, context_id: str | None, *, reembed: bool = False) -> list[Switch]:
        """Rebuild the index of ``context_id`` (every index when None); ``reembed`` forces new vectors."""
        return [self._rebuild(alias, reembed) for alias in self._generations.aliases(context_id)]

    def rollback(self, context_id: str | None) -> list[Switch]:
        """Move each alias back to the index its last rebuild replaced."""
        return [self._rollback(alias) for alias in self._generations.aliases(context_id)]

    def _rebuild(self, alias: str, force: bool) -> Switch:
        gens = self._generations
        source = gens.current(alias)
        # A rebuild stopped between its block and its switch (a killed process) left the block behind.
        gens.block_writes(source.index, False)
        reembed = force or _vectors_differ(source, gens.embedder, gens.dimension)
        target = gens.create(alias, previous=source.index)
        self._progress(
            f"{alias}: rebuilding {source.index} -> {target.index}" + (" (embedding again)" * reembed)
        )
        try:
            return self._move(alias, source, target, since=None, reembed=reembed)
        except BaseException:
            gens.discard(target.index)
            raise

    def _rollback(self, alias: str) -> Switch:
        gens = self._generations
        source = gens.current(alias)
        if source.previous is None:
            raise NothingToRollBackError(
                f"{alias}: {source.index} was not made by a rebuild; nothing to roll back to"
            )
        target = gens.reopen(source.previous)
        try:
            reembed = _vectors_differ(source, target.embedder, target.dimension)
            if reembed and target.embedder != gens.embedder:
                raise EmbedderMismatchError(
                    f"{alias}: {target.index} holds vectors of {target.embedder}; configure that embedder "
                    "(and its dimension) to roll back to it"
                )
            self._progress(f"{alias}: rolling back {source.index} -> {target.index}")
            return self._move(alias, source, target, since=source.switched_at, reembed=reembed)
        except BaseException:
            gens.retire(target.index)
            raise

    def _move(
        self, alias: str, source: Generation, target: Generation, *, since: Checkpoint | None, reembed: bool
    ) -> Switch:
        """Copy ``source`` into ``target`` while ``source`` serves, then block, finish and switch."""
        gens = self._generations
        total = gens.count(source.index)
        for round_ in range(CATCH_UP_ROUNDS):
            mark = gens.checkpoint(source.index)
            label = f"{alias}: copied" if since is None else f"{alias}: catch-up {round_}: copied"
            copied = gens.copy(
                source.index, target.index, since, reembed=reembed, progress=self._counter(label, total)
            )
            self._progress(f"{label} {copied} documents")
            quiet = since is not None and copied <= QUIET_CHANGES
            since = mark
            if quiet:
                break
        gens.block_writes(source.index, True)
        try:
            last = gens.copy(source.index, target.index, since, reembed=reembed, progress=lambda _: None)
            dropped = gens.drop_absent(source.index, target.index)
            documents, copies = gens.count(source.index), gens.count(target.index)
            if documents != copies:
                raise RebuildCountMismatchError(
                    f"{alias}: {target.index} holds {copies} documents, {source.index} {documents}; "
                    "not switched"
                )
            gens.switch(alias, source.index, target.index, gens.checkpoint(target.index))
        except BaseException:
            gens.block_writes(source.index, False)
            raise
        self._progress(f"{alias}: writes held while copying {last} last changes, {dropped} deletes; switched")
        gens.retire(source.index)
        return Switch(alias, source.index, target.index, documents, reembed)

    def _counter(self, label: str, total: int) -> Callable[[int], None]:
        return lambda copied: self._progress(f"{label} {copied} of ~{total}")


def _vectors_differ(source: Generation, embedder: str | None, dimension: int) -> bool:
    """Whether ``source``'s vectors are not what ``embedder`` at ``dimension`` makes (an index that does
    not record its embedder is trusted when the dimension matches)."""
    return source.dimension != dimension or (source.embedder is not None and source.embedder != embedder)
