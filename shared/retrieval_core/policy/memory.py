"""An in-memory session store: the state of sessionless requests, and the fake behind unit tests.

One lock makes every transition atomic, matching what the DynamoDB store gets from conditional writes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from .state import REJECTED, Reservation, Reserved, SessionScope, SessionState


@dataclass(slots=True)
class _Entry:
    state: SessionState = field(default_factory=SessionState)
    expires_at: datetime | None = None


class InMemorySessionStore:
    """``SessionStore`` in a dict; ``ttl`` mirrors the table's TTL so expiry behaves the same."""

    def __init__(self, ttl: timedelta = timedelta(hours=24)) -> None:
        self._ttl = ttl
        self._entries: dict[SessionScope, _Entry] = {}
        self._lock = threading.Lock()

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        with self._lock:
            entry = self._live(scope, now)
            return entry.state if entry else None

    def reserve(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Reservation:
        with self._lock:
            state = self._live_or_new(scope, now).state
            refusal = state.refusal(key, limit)
            if refusal is not None:
                return refusal
            sequence = state.accepted + 1
            self._write(
                scope,
                now,
                replace(state, used=state.used + 1, accepted=sequence, seen={**state.seen, key: sequence}),
            )
            return Reserved(sequence)

    def mark_seen(self, scope: SessionScope, key: str, now: datetime) -> None:
        with self._lock:
            state = self._live_or_new(scope, now).state
            self._write(scope, now, replace(state, seen={key: REJECTED, **state.seen}))

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], now: datetime
    ) -> dict[str, str]:
        with self._lock:
            state = self._live_or_new(scope, now).state
            known = set(state.sources)
            new = [i for i in dict.fromkeys(item_ids) if i not in known]
            state = replace(state, successful=state.successful + 1, sources=(*state.sources, *new))
            self._write(scope, now, state)
            names = state.names()
            return {item_id: names[item_id] for item_id in item_ids}

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        with self._lock:
            state = self._live_or_new(scope, now).state
            self._write(scope, now, replace(state, used=state.used - 1))

    def _live(self, scope: SessionScope, now: datetime) -> _Entry | None:
        entry = self._entries.get(scope)
        if entry is not None and entry.expires_at is not None and entry.expires_at <= now:
            del self._entries[scope]
            return None
        return entry

    def _live_or_new(self, scope: SessionScope, now: datetime) -> _Entry:
        return self._live(scope, now) or _Entry()

    def _write(self, scope: SessionScope, now: datetime, state: SessionState) -> None:
        self._entries[scope] = _Entry(state, now + self._ttl)
