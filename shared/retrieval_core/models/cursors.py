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
    """``entries`` in rank order; ``complete`` when nothing ranks below the last entry (or the cap is
    reached); ``version`` grows with every extension, so two concurrent extensions cannot both win."""

    fingerprint: str
    arms: tuple[str, ...]
    entries: tuple[FrozenEntry, ...]
    complete: bool
    version: int = 1
