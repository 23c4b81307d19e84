"""Each context's entity dictionary as one ingest container keeps it: read whole once (no cap), then
extended in place by what each file adds, and by what other writers added, read every few seconds as
the names of the items created since the last read (``RecentNames``). A local ``retrieval sync`` runs
the ingest function in one process, so its whole folder pays for one read; a deployed ingest
container pays for one read per context it serves and a small read of the recent names now and then
(docs/STORAGE.md, "The entity dictionary an ingest reads")."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from ..ports import NamedEntity
from .entities import EntityDictionary, NameIndex

RECHECK_SECONDS = 5.0
"""How often a warm container reads the names other writers added (at most once per this, per context):
a name another container added reaches this one's matching at most this much later."""
OVERLAP = timedelta(minutes=2)
"""How far back before the last read a recent read reaches: an item is stamped when its file is chunked
and becomes searchable after its load and the index's refresh, so one created before the last read may
only be visible after it."""
MAX_AGE_SECONDS = 900.0
"""A context's dictionary is read whole again after this long: what the recent reads cannot see (an item
loaded with an old ``created_at``, a removed page's title) is at most this stale."""
CONTEXTS = 8
"""Contexts one container keeps (the least recently used one is dropped first)."""


@runtime_checkable
class RecentNames(Protocol):
    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        """The dictionary entries of the context's items created at or after ``since`` (every one)."""
        ...


@dataclass(slots=True)
class _Cached:
    index: NameIndex
    read_at: datetime
    """Wall time the last read (whole or recent) started."""
    loaded: float
    """Monotonic time of the last whole read."""
    checked: float
    """Monotonic time of the last read, whole or recent."""


class ContextNames:
    """The dictionaries of the contexts this container ingests, each a ``NameIndex`` its callers extend
    in place with what they add."""

    def __init__(
        self,
        source: EntityDictionary,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._source = source
        self._clock = clock
        self._monotonic = monotonic
        self._cached: OrderedDict[str, _Cached] = OrderedDict()

    def index(self, context_id: str) -> NameIndex:
        """The context's dictionary, current as of the last ``RECHECK_SECONDS``."""
        now = self._monotonic()
        cached = self._cached.get(context_id)
        if cached is None or now - cached.loaded >= MAX_AGE_SECONDS:
            started = self._clock()
            cached = _Cached(NameIndex(self._source.entity_names(context_id)), started, now, now)
            self._cached[context_id] = cached
        elif now - cached.checked >= RECHECK_SECONDS and isinstance(self._source, RecentNames):
            started = self._clock()
            cached.index.add(self._source.entity_names_since(context_id, cached.read_at - OVERLAP))
            cached.read_at, cached.checked = started, now
        self._cached.move_to_end(context_id)
        while len(self._cached) > CONTEXTS:
            self._cached.popitem(last=False)
        return cached.index
