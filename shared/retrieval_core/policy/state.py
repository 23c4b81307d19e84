"""Session state and the port that stores it.

A session is scoped to one context and, when the authorizer names a caller, to that principal: the same
session id in two contexts, or for two principals, names two sessions. Per session the store keeps the
query keys it has claimed (in flight or answered) and a log of answered queries in order; the log gives
each answered query its sequence number and each new source its position. A source's name is
``S{position}``, so the same item keeps the same name for the life of the session.

A query that is refused (duplicate, budget) or fails leaves nothing behind: only an answered query counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from ..context import CallerContext
from .errors import InvalidQueryError

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,256}$")
"""The same shape the retrieve request accepts for ``session_id`` (matched in full)."""


def source_name(position: int) -> str:
    """The citable name of the source at 1-based ``position`` in the session."""
    return f"S{position}"


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
class Reserved:
    """The key is claimed for this request: no other request may run it until it completes or is released."""


@dataclass(frozen=True, slots=True)
class AlreadySeen:
    """The key was answered as ``sequence``, or is being answered right now (``sequence`` None)."""

    sequence: int | None


@dataclass(frozen=True, slots=True)
class OverBudget:
    """``used`` queries were answered and the limit allows no more."""

    used: int


@dataclass(frozen=True, slots=True)
class Completed:
    """The answer counted as query ``sequence``; ``names`` maps each of its item ids to its source name."""

    sequence: int
    names: dict[str, str]


Refusal = AlreadySeen | OverBudget
Reservation = Reserved | AlreadySeen
Completion = Completed | OverBudget


class SessionStore(Protocol):
    """Session state with atomic transitions; ``now`` drives expiry (a session lives ``ttl`` from its
    first answered query)."""

    def load(self, scope: SessionScope, now: datetime) -> SessionState | None:
        """The live state, or None when the session has no answered query or has expired."""
        ...

    def check(self, scope: SessionScope, key: str, limit: int, now: datetime) -> Refusal | None:
        """Why ``key`` would be refused now (an answered duplicate first, then the budget), or None.
        Advisory: ``reserve`` and ``complete`` enforce both atomically."""
        ...

    def reserve(self, scope: SessionScope, key: str, now: datetime) -> Reservation:
        """Claim ``key`` atomically; a claimed or answered key is ``AlreadySeen``."""
        ...

    def complete(
        self, scope: SessionScope, key: str, item_ids: Sequence[str], limit: int, now: datetime
    ) -> Completion:
        """Count the claimed query as answered if fewer than ``limit`` were (atomically), naming its
        sources; ``OverBudget`` releases the claim."""
        ...

    def release(self, scope: SessionScope, key: str, now: datetime) -> None:
        """Drop the claim of a query that failed: it does not count and may be asked again."""
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
