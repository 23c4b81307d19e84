"""An in-memory session store: the state of sessionless requests, and the fake behind unit tests.

One lock makes every transition atomic, matching what the DynamoDB store gets from conditional writes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .state import (
    Admission,
    Admitted,
    AlreadySeen,
    Attempt,
    Completed,
    Completion,
    InProgress,
    Keep,
    KeyReused,
    OverBudget,
    Replayed,
    SessionScope,
    SessionState,
    source_names,
)


@dataclass(slots=True)
class _Key:
    """An idempotency key: the query it belongs to, the lock's holder while it runs, then its answer."""

    query: str
    holder: str | None
    sequence: int | None = None
    answer: bytes | None = None


@dataclass(slots=True)
class _Session:
    expires_at: datetime
    answered: dict[str, int] = field(default_factory=dict)
    """Query key -> its sequence, for every answered query."""
    sources: dict[str, int] = field(default_factory=dict)
    """Item id -> position, in the order the positions were given."""
    keys: dict[str, _Key] = field(default_factory=dict)


class InMemorySessionStore:
    """``SessionStore`` in a dict; ``ttl`` mirrors the table's TTL so expiry behaves the same."""

    def __init__(self, ttl: timedelta = timedelta(hours=24)) -> None:
        self._ttl = ttl
        self._sessions: dict[SessionScope, _Session] = {}
        self._lock = threading.Lock()

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        with self._lock:
            session = self._live(scope, now)
            if session is None or not session.answered:
                return None
            return SessionState(len(session.answered), tuple(session.sources))

    def admit(self, attempt: Attempt, limit: int, now: datetime) -> Admission:
        with self._lock:
            session = self._session(attempt.scope, now)
            held = session.keys.get(attempt.idempotency_key or "")
            if held is not None:
                if held.query != attempt.key:
                    return KeyReused()
                if held.sequence is None:
                    return InProgress()
                return Replayed(held.sequence, held.answer)
            if attempt.key in session.answered:
                return AlreadySeen(session.answered[attempt.key])
            if len(session.answered) >= limit:
                return OverBudget(len(session.answered))
            if attempt.idempotency_key is not None:
                session.keys[attempt.idempotency_key] = _Key(attempt.key, attempt.token)
            return Admitted()

    def complete(
        self, attempt: Attempt, item_ids: Sequence[str], limit: int, now: datetime, keep: Keep | None
    ) -> Completion:
        with self._lock:
            session = self._session(attempt.scope, now)
            refusal: Completion | None = None
            if attempt.key in session.answered:
                refusal = AlreadySeen(session.answered[attempt.key])
            elif len(session.answered) >= limit:
                refusal = OverBudget(len(session.answered))
            if refusal is not None:
                self._unlock(session, attempt)
                return refusal
            for item_id in item_ids:
                session.sources.setdefault(item_id, len(session.sources) + 1)
            sequence = session.answered[attempt.key] = len(session.answered) + 1
            completed = Completed(sequence, source_names(session.sources, item_ids))
            held = session.keys.get(attempt.idempotency_key or "")
            if held is not None:
                held.holder, held.sequence = None, sequence
                held.answer = None if keep is None else keep(completed)
            return completed

    def release(self, attempt: Attempt, now: datetime) -> None:
        with self._lock:
            session = self._sessions.get(attempt.scope)
            if session is not None:
                self._unlock(session, attempt)

    @staticmethod
    def _unlock(session: _Session, attempt: Attempt) -> None:
        held = session.keys.get(attempt.idempotency_key or "")
        if held is not None and held.holder == attempt.token:
            del session.keys[attempt.idempotency_key or ""]

    def _session(self, scope: SessionScope, now: datetime) -> _Session:
        return self._live(scope, now) or self._sessions.setdefault(scope, _Session(now + self._ttl))

    def _live(self, scope: SessionScope, now: datetime) -> _Session | None:
        session = self._sessions.get(scope)
        if session is not None and session.expires_at <= now:
            del self._sessions[scope]
            return None
        return session
