"""Session state and the port that stores it.

A session is scoped to one context: the same session id in two contexts names two sessions. The store
keeps, per session: how many queries succeeded, how many budget slots are in use (successful plus in
flight), the sequence counter, every query key seen (with the sequence number it was accepted as, or
``REJECTED`` when it was turned away) and the sources collected, in acceptance order. A source's name is
``S{position}``, so the same item keeps the same name for the life of the session.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from ..context import CallerContext
from .errors import InvalidQueryError

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,256}$")
"""The same shape the retrieve request accepts for ``session_id``."""
REJECTED = 0
"""The sequence number stored for a key that was seen but never accepted."""


def source_name(position: int) -> str:
    """The citable name of the source at 1-based ``position`` in the session."""
    return f"S{position}"


@dataclass(frozen=True, slots=True)
class SessionScope:
    """Which session, in which context."""

    context_id: str
    session_id: str

    def __post_init__(self) -> None:
        CallerContext(self.context_id)  # validates the context id
        if not isinstance(self.session_id, str) or not SESSION_ID_PATTERN.match(self.session_id):
            raise InvalidQueryError("session_id must be 1-256 letters, digits, '.', '_', ':' or '-'.")


@dataclass(frozen=True, slots=True)
class SessionState:
    """A consistent snapshot of one session."""

    successful: int = 0
    used: int = 0
    accepted: int = 0
    seen: Mapping[str, int] = field(default_factory=dict)
    sources: Sequence[str] = ()

    def refusal(self, key: str, limit: int) -> AlreadySeen | OverBudget | None:
        """Why ``key`` may not be accepted under ``limit`` now, or None when it may (duplicates first)."""
        if key in self.seen:
            return AlreadySeen(self.seen[key])
        if self.used >= limit:
            return OverBudget(self.used)
        return None

    def names(self) -> dict[str, str]:
        """Item id -> citable name, for every source collected so far."""
        return {item_id: source_name(i) for i, item_id in enumerate(self.sources, start=1)}


@dataclass(frozen=True, slots=True)
class Reserved:
    """The key was new and a budget slot was free: the query is accepted as ``sequence``."""

    sequence: int


@dataclass(frozen=True, slots=True)
class AlreadySeen:
    """The key was seen before, as ``sequence`` (``REJECTED`` if it was never accepted)."""

    sequence: int


@dataclass(frozen=True, slots=True)
class OverBudget:
    """Every slot is taken (``used`` counts successful and in-flight queries)."""

    used: int


Reservation = Reserved | AlreadySeen | OverBudget


class SessionStore(Protocol):
    """Session state with atomic transitions; ``now`` drives expiry (state lives ``ttl`` after a write)."""

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        """The live state, or None when the session does not exist or has expired."""
        ...

    def reserve(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Reservation:
        """In one atomic step: if ``key`` is unseen and fewer than ``limit`` slots are used, mark it
        seen, take a slot and assign the next sequence number."""
        ...

    def mark_seen(self, scope: SessionScope, key: str, now: datetime) -> None:
        """Record a rejected ``key`` as seen (keeps its sequence number if it already had one)."""
        ...

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], now: datetime
    ) -> dict[str, str]:
        """Turn the key's slot into a success and collect ``item_ids``; returns item id -> name."""
        ...

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        """Free the key's slot after a failed read; the key stays seen."""
        ...


class SessionSource(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    id: str


class SessionView(BaseModel):
    """What ``GET /v1/sessions/{session_id}`` shows the session's owner."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    count: int
    limit: int
    sources: list[SessionSource]
