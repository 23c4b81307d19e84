"""A frozen ranking: the ordered candidates the pages of one request are cut from (docs/STORAGE.md,
"Paging"). Only what rebuilds a hit's rank is kept; an item's content is read again for its page."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from .hits import Signal

ID_FINGERPRINT_BYTES = 8
"""64 bits of sha256 per id. An id is wrongly left out of a second page only if its fingerprint equals
one of the at most 100 the first page showed: among at most 1,000 ranked ids that is about 1e5 / 2^64
(~5e-15) per request, negligible. Eight bytes keep a 100-hit first page's token near 1.2 KB."""


def id_fingerprints(item_ids: Iterable[str]) -> frozenset[bytes]:
    return frozenset(id_fingerprint(i) for i in item_ids)


def id_fingerprint(item_id: str) -> bytes:
    return hashlib.sha256(item_id.encode()).digest()[:ID_FINGERPRINT_BYTES]


def packed(fingerprints: frozenset[bytes]) -> bytes:
    """Fingerprints as one byte string (sorted, so equal sets pack alike)."""
    return b"".join(sorted(fingerprints))


def unpacked(raw: bytes) -> frozenset[bytes]:
    return frozenset(raw[i : i + ID_FINGERPRINT_BYTES] for i in range(0, len(raw), ID_FINGERPRINT_BYTES))


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
    ``base`` (what the first page showed), which are never frozen. ``complete`` when nothing ranks below
    the last entry (or the cap is reached); ``version`` grows with every extension, so two concurrent
    extensions cannot both win."""

    fingerprint: str
    arms: tuple[str, ...]
    entries: tuple[FrozenEntry, ...]
    complete: bool
    version: int = 1
    base: int = 0
    shown: frozenset[bytes] = field(default_factory=frozenset)

    @property
    def end(self) -> int:
        """The position just below the last entry."""
        return self.base + len(self.entries)

    def window(self, offset: int, size: int) -> tuple[FrozenEntry, ...]:
        """The entries at positions ``offset`` to ``offset + size`` (absolute, like a page's offset)."""
        start = offset - self.base  # never negative: a cursor's tokens start at its base or deeper
        return self.entries[start : start + size]
