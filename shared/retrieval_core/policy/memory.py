"""An in-memory session store: the state of sessionless requests, and the fake behind unit tests.

One lock makes every transition atomic, matching what the DynamoDB store gets from conditional writes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .state import (
    AlreadySeen,
    Completed,
    Completion,
    OverBudget,
    Refusal,
    Reservation,
    Reserved,
    SessionScope,
    SessionState,
    source_name,
)


@dataclass(slots=True)
class _Session:
    expires_at: datetime
    claims: dict[str, int | None] = field(default_factory=dict)
    """Query key -> its sequence once answered, None while in flight."""
    sources: dict[str, int] = field(default_factory=dict)
    """Item id -> position, in the order the positions were given."""
    answered: int = 0


class InMemorySessionStore:
    """``SessionStore`` in a dict; ``ttl`` mirrors the table's TTL so expiry behaves the same."""

    def __init__(self, ttl: timedelta = timedelta(hours=24)) -> None:
        self._ttl = ttl
        self._sessions: dict[SessionScope, _Session] = {}
        self._lock = threading.Lock()

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        with self._lock:
            session = self._live(scope, now)
            if session is None or session.answered == 0:
                return None
            return SessionState(session.answered, tuple(session.sources))

    def check(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Refusal | None:
        with self._lock:
            session = self._live(scope, now)
            if session is None:
                return None
            if session.claims.get(key) is not None:
                return AlreadySeen(session.claims[key])
            return OverBudget(session.answered) if session.answered >= limit else None

    def reserve(self, scope: SessionScope, key: str, now: datetime) -> Reservation:
        with self._lock:
            session = self._live(scope, now) or self._sessions.setdefault(scope, _Session(now + self._ttl))
            if key in session.claims:
                return AlreadySeen(session.claims[key])
            session.claims[key] = None
            return Reserved()

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], limit: int, now: datetime
    ) -> Completion:
        with self._lock:
            session = self._sessions.setdefault(scope, _Session(now + self._ttl))
            if session.answered >= limit:
                session.claims.pop(key, None)
                return OverBudget(session.answered)
            for item_id in item_ids:
                session.sources.setdefault(item_id, len(session.sources) + 1)
            session.answered += 1
            session.claims[key] = session.answered
            return Completed(
                session.answered, {item_id: source_name(session.sources[item_id]) for item_id in item_ids}
            )

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        with self._lock:
            session = self._sessions.get(scope)
            if session is not None and key in session.claims and session.claims[key] is None:
                del session.claims[key]

    def _live(self, scope: SessionScope, now: datetime) -> _Session | None:
        session = self._sessions.get(scope)
        if session is not None and session.expires_at <= now:
            del self._sessions[scope]
            return None
        return session
