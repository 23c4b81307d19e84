"""Session state and the port that stores it.

A session is scoped to one context and, when the authorizer names a caller, to that principal: the same
session id in two contexts, or for two principals, names two sessions. Per session the store keeps a log of
answered queries in order; the log gives each answered query its sequence number and each new source its
position. A source's name is ``S{position}``, so the same item keeps the same name for the life of the
session. A request may carry an idempotency key: the store then locks the key while the request runs and
keeps its answer, so that the same request sent again gets that answer back instead of a refusal.

A query that is refused (duplicate, budget) or fails leaves nothing behind: only an answered query counts.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from ..context import CallerContext
from .errors import InvalidQueryError

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,256}$")
"""The same shape the retrieve request accepts for ``session_id`` (matched in full)."""

IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,256}")
"""An idempotency key: 1-256 visible ASCII characters (a UUID, or an execution id and a state name)."""


def source_name(position: int) -> str:
    """The citable name of the source at 1-based ``position`` in the session."""
    return f"S{position}"


def source_names(positions: Mapping[str, int], item_ids: Iterable[str]) -> dict[str, str]:
    """Each of ``item_ids`` by its citable name, from the session's 1-based ``positions``."""
    return {item_id: f"S{positions[item_id]}" for item_id in item_ids}


@dataclass(frozen=True, slots=True)
class SessionScope:
    """Which session: its id, in which context, for which principal (None when the caller is trusted by
    IAM, e.g. a direct invocation, and no authorizer named one)."""

    context_id: str
    session_id: str
    principal: str | None = None

    def __post_init__(self) -> None:
        CallerContext(self.context_id)  # validates the context id
        if not isinstance(self.session_id, str) or not SESSION_ID_PATTERN.fullmatch(self.session_id):
            raise InvalidQueryError("session_id must be 1-256 letters, digits, '.', '_', ':' or '-'.")


@dataclass(frozen=True, slots=True)
class SessionState:
    """A consistent snapshot of one session: answered queries and the sources they named, in order."""

    successful: int = 0
    sources: Sequence[str] = ()

    def names(self) -> dict[str, str]:
        """Item id -> citable name, for every source collected so far."""
        return {item_id: source_name(i) for i, item_id in enumerate(self.sources, start=1)}


@dataclass(frozen=True, slots=True)
class Attempt:
    """One request as the store sees it: its session, its dedup key, its idempotency key (if any), and a
    token that is this request's alone (a key's lock is released only by the request that holds it)."""

    scope: SessionScope
    key: str
    idempotency_key: str | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        key = self.idempotency_key
        if key is not None and (not isinstance(key, str) or not IDEMPOTENCY_KEY_PATTERN.fullmatch(key)):
            raise InvalidQueryError(
                "idempotency_key must be 1-256 visible ASCII characters.", field="idempotency_key"
            )


@dataclass(frozen=True, slots=True)
class Admitted:
    """The request may run: its query is new to the session, the budget has room, and its idempotency key
    (if any) is locked for it until it completes or is released."""


@dataclass(frozen=True, slots=True)
class AlreadySeen:
    """The key was answered as ``sequence``, or is being answered right now (``sequence`` None)."""

    sequence: int | None


@dataclass(frozen=True, slots=True)
class OverBudget:
    """``used`` queries were answered and the limit allows no more."""

    used: int


@dataclass(frozen=True, slots=True)
class InProgress:
    """Another request with the same idempotency key is running right now."""


@dataclass(frozen=True, slots=True)
class KeyReused:
    """The idempotency key belongs to a different request of this session."""


@dataclass(frozen=True, slots=True)
class Replayed:
    """The request with this idempotency key was answered as ``sequence``; ``answer`` is what was kept
    (None when it was not: too large to keep, or its write failed)."""

    sequence: int
    answer: bytes | None


@dataclass(frozen=True, slots=True)
class Completed:
    """The answer counted as query ``sequence``; ``names`` maps each of its item ids to its source name."""

    sequence: int
    names: dict[str, str]


Admission = Admitted | AlreadySeen | OverBudget | InProgress | KeyReused | Replayed
Completion = Completed | AlreadySeen | OverBudget
Keep = Callable[[Completed], bytes]
"""Renders the answer to keep for an idempotent request, given the completion it would count as."""


class SessionStore(Protocol):
    """Session state with atomic transitions; ``now`` drives expiry (a session lives ``ttl`` from its
    first answered query). A request takes ``admit`` then ``complete``: one round trip each."""

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        """The live state, or None when the session has no answered query or has expired."""
        ...

    def admit(self, attempt: Attempt, limit: int, now: datetime) -> Admission:
        """Whether the request may run: with an idempotency key, a replay of the key's answer, a key of
        another request, or a key in use come first; then an answered duplicate, then the budget. Locks the
        idempotency key when it admits. ``complete`` enforces duplicate and budget atomically."""
        ...

    def complete(
        self, attempt: Attempt, item_ids: Sequence[str], limit: int, now: datetime, keep: Keep | None
    ) -> Completion:
        """Count the query as answered, atomically: refused when the session answered it meanwhile or
        the budget is spent (the key's lock is then released), else named and, with an idempotency key,
        its answer (``keep``) kept for replays."""
        ...

    def release(self, attempt: Attempt, now: datetime) -> None:
        """Drop the idempotency key's lock of a request that failed: it does not count, the key is free."""
        ...


# Only GET /v1/sessions/{session_id} answers these: their validators are built by its first request
# (defer_build), not by every cold start of the retrieve function.
class SessionSource(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    id: str


class SessionView(BaseModel):
    """What ``GET /v1/sessions/{session_id}`` shows the session's owner."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    count: int
    limit: int
    sources: list[SessionSource]


class OneQuery:
    """The session of a request without one: a single query, so it is always admitted (a limit is at
    least 1 and nothing was answered before it; an idempotency key needs a session) and its sources are
    named in the order its hits give them, S1 first. Nothing outlives the request: what a fresh
    ``InMemorySessionStore`` answers, without one built (and locked) per request."""

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        return None

    def admit(self, attempt: Attempt, limit: int, now: datetime) -> Admission:
        return Admitted()

    def complete(
        self, attempt: Attempt, item_ids: Sequence[str], limit: int, now: datetime, keep: Keep | None
    ) -> Completion:
        positions = {item_id: n for n, item_id in enumerate(dict.fromkeys(item_ids), start=1)}
        return Completed(1, source_names(positions, item_ids))

    def release(self, attempt: Attempt, now: datetime) -> None:
        return None


ONE_QUERY = OneQuery()
