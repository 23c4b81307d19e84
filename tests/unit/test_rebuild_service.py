"""The rebuild use case's order of steps, against an in-memory index engine: writes during the copy are
replayed, writes are blocked only around the switch, a failure leaves the old index serving and
writable, and vectors are computed again exactly when the embedder changed."""

from __future__ import annotations

import pytest
from fakes_generations import BlockedError, FakeGenerations
from retrieval_core.lifecycle.ports import Generation
from retrieval_core.lifecycle.rebuild import (
    EmbedderMismatchError,
    NothingToRollBackError,
    RebuildCountMismatchError,
    RebuildService,
)

ALIAS = "items.acme"
FIRST = "items.acme.v2"


def engine(embedder: str | None = "local:a", dimension: int = 4, documents: int = 5) -> FakeGenerations:
    fake = FakeGenerations()
    fake.add(ALIAS, Generation(FIRST, dimension, embedder))
    for n in range(documents):
        fake.write(ALIAS, f"d{n}", f"text {n}")
    return fake


def test_writes_during_the_copy_are_replayed_and_the_alias_moves_once_counts_match() -> None:
    fake = engine()
    writes = iter([("d1", "changed"), ("d9", "new")])

    def write_while_copying(target: str) -> None:
        if next_write := next(writes, None):
            fake.write(ALIAS, *next_write)  # lands in the old index, which still serves

    fake.on_copy = write_while_copying
    fake.delete(ALIAS, "d0")
    progress: list[str] = []
    (switch,) = RebuildService(fake, progress.append).rebuild("acme")
    assert fake.alias[ALIAS] == switch.target != FIRST
    assert fake.texts(switch.target) == fake.texts(FIRST)
    assert fake.texts(switch.target)["d1"] == "changed" and "d9" in fake.texts(switch.target)
    assert switch.documents == 5 and not switch.reembedded
    assert fake.indices[FIRST].closed and not fake.indices[switch.target].blocked
    assert any("catch-up" in line for line in progress)


def test_a_delete_during_the_copy_is_dropped_from_the_new_index() -> None:
    fake = engine()
    fake.on_copy = lambda target: fake.delete(ALIAS, "d3") if "d3" in fake.texts(FIRST) else None
    (switch,) = RebuildService(fake).rebuild("acme")
    assert "d3" not in fake.texts(switch.target)


def test_writes_are_blocked_only_between_the_last_copy_and_the_switch() -> None:
    fake = engine()
    blocked_during: list[bool] = []
    fake.on_copy = lambda target: blocked_during.append(fake.indices[FIRST].blocked)
    RebuildService(fake).rebuild("acme")
    assert blocked_during[0] is False and blocked_during[-1] is True


def test_a_count_mismatch_switches_nothing_deletes_the_new_index_and_lifts_the_block() -> None:
    fake = engine()
    real_count = fake.count
    fake.count = lambda index: real_count(index) + (index != FIRST)  # type: ignore[method-assign]
    with pytest.raises(RebuildCountMismatchError):
        RebuildService(fake).rebuild("acme")
    assert fake.alias[ALIAS] == FIRST and list(fake.indices) == [FIRST]
    fake.write(ALIAS, "d7", "still writable")


def test_a_failed_copy_leaves_the_old_index_serving_and_writable() -> None:
    fake = engine()

    def fail(target: str) -> None:
        raise BlockedError("engine went away")

    fake.on_copy = fail
    with pytest.raises(BlockedError):
        RebuildService(fake).rebuild("acme")
    assert fake.alias[ALIAS] == FIRST and list(fake.indices) == [FIRST]
    assert not fake.indices[FIRST].blocked


@pytest.mark.parametrize(
    ("recorded", "dimension", "force", "reembedded"),
    [
        ("local:a", 4, False, False),
        ("local:old", 4, False, True),  # another embedder made the vectors
        ("local:a", 8, False, True),  # another dimension
        (None, 4, False, False),  # not recorded: the same dimension is trusted
        ("local:a", 4, True, True),  # --reembed
    ],
)
def test_vectors_are_computed_again_exactly_when_they_differ(
    recorded: str | None, dimension: int, force: bool, reembedded: bool
) -> None:
    fake = engine(recorded, dimension)
    (switch,) = RebuildService(fake).rebuild("acme", reembed=force)
    assert switch.reembedded is reembedded
    assert len(fake.reembedded) == (5 if reembedded else 0)


def test_rollback_returns_to_the_kept_index_with_what_was_written_since() -> None:
    fake = engine()
    (forward,) = RebuildService(fake).rebuild("acme")
    fake.write(ALIAS, "d5", "after the switch")
    fake.write(ALIAS, "d2", "updated after the switch")
    fake.delete(ALIAS, "d4")
    fake.copied.clear()
    (back,) = RebuildService(fake).rollback("acme")
    assert (back.source, back.target) == (forward.target, FIRST)
    assert fake.alias[ALIAS] == FIRST and fake.indices[forward.target].closed
    assert fake.texts(FIRST) == fake.texts(forward.target)
    assert fake.texts(FIRST)["d2"] == "updated after the switch" and "d4" not in fake.texts(FIRST)
    # Only the changes since the switch were copied back (the deletion is dropped, not copied); the
    # switch reports what the index holds.
    assert sorted(fake.copied) == ["d2", "d5"]
    assert back.documents == 5


def test_rollback_needs_a_previous_index_and_its_embedder() -> None:
    with pytest.raises(NothingToRollBackError):
        RebuildService(engine()).rollback("acme")
    fake = engine(embedder="local:old")
    RebuildService(fake).rebuild("acme")
    with pytest.raises(EmbedderMismatchError):
        RebuildService(fake).rollback("acme")
    assert fake.indices[FIRST].closed  # left as it was: kept, closed
