"""A frozen ranking: the ordered candidates the pages of one request are cut from (docs/STORAGE.md,
"Paging"). Only what rebuilds a hit's rank is kept; an item's content is read again for its page."""

from __future__ import annotations

from dataclasses import dataclass, field

from .hits import Signal


@dataclass(frozen=True, slots=True)
class FrozenEntry:
    id: str
    score: float
    signals: dict[str, Signal] = field(default_factory=dict)
    found_by: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FrozenRanking:
    """``entries`` in rank order, the first at position ``base`` (the second page freezes what ranks
    after the first page, which froze nothing); ``shown`` holds the fingerprints of the ids above
    ``base`` (what the first page showed), which are never frozen, joined as the paging token joins
    them (``retrieval.paging``): a store keeps the bytes as they are. ``complete`` when nothing ranks below
    the last entry (or the cap is reached); ``version`` grows with every extension, so two concurrent
    extensions cannot both win."""

    fingerprint: str
    arms: tuple[str, ...]
    entries: tuple[FrozenEntry, ...]
    complete: bool
    version: int = 1
    base: int = 0
    shown: bytes = b""

    @property
    def end(self) -> int:
        """The position just below the last entry."""
        return self.base + len(self.entries)

    def window(self, offset: int, size: int) -> tuple[FrozenEntry, ...]:
        """The entries at positions ``offset`` to ``offset + size`` (absolute, like a page's offset)."""
        start = offset - self.base  # never negative: a cursor's tokens start at its base or deeper
        return self.entries[start : start + size]
