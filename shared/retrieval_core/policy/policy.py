"""The policy run: every accepted query is new to its session, fits its budget, is authorized, and
comes back with a receipt.

Order: prepare -> assert_input -> duplicate check -> budget check -> authorize -> reserve (atomic: the
key and a budget slot) -> execute -> assert_result -> name the sources -> receipt -> effects. A read
that fails after the reservation keeps its key seen (a retry is a duplicate) but frees its slot.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, NoReturn, TypeVar

from ..models.item import iso
from .config import PolicyConfig
from .errors import DuplicateQueryError, SessionBudgetExhaustedError, SessionNotFoundError
from .kind import HITS, RetrievalKind
from .memory import InMemorySessionStore
from .receipt import EffectInput, Outcome, Receipt
from .state import (
    REJECTED,
    AlreadySeen,
    OverBudget,
    Reserved,
    SessionScope,
    SessionSource,
    SessionStore,
    SessionView,
)

T = TypeVar("T")
logger = logging.getLogger(__name__)

REQUEST_LOCAL_SESSION = "request-local"
"""The scope name of a sessionless request's throwaway state."""


def utc_now() -> datetime:
    return datetime.now(UTC)


class RetrievalPolicy(Generic[T]):
    """Runs queries of one kind against session state in ``store`` (sessions with an id) or in a fresh
    in-memory store (requests without one). Thread-safe when the store is."""

    def __init__(
        self,
        store: SessionStore,
        config: PolicyConfig | None = None,
        kind: RetrievalKind[T] = HITS,  # type: ignore[assignment]
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self._store = store
        self._config = config or PolicyConfig()
        self._kind = kind
        self._now = now

    def run(
        self,
        query: Mapping[str, Any],
        *,
        context_id: str,
        session_id: str | None = None,
        claim_limit: int | None = None,
        request_limit: int | None = None,
        execute: Callable[[Mapping[str, Any]], Sequence[T]],
    ) -> Outcome[T]:
        """Run ``execute(prepared_query)`` under the policy and return its result, receipt and names.

        Raises ``InvalidQueryError`` (422), ``DuplicateQueryError`` (409),
        ``SessionBudgetExhaustedError`` (429), ``QueryForbiddenError`` (403), ``UnusableResultError``
        (500); whatever ``execute`` raises propagates unchanged after the slot is released.
        """
        kind = self._kind
        requested_at = self._now()
        prepared = kind.prepare(query)
        kind.assert_input(prepared)
        key = kind.key(prepared)
        limit = self._config.effective_limit(claim_limit, request_limit)
        store, scope = self._session(context_id, session_id)

        state = store.load(scope, requested_at)
        refusal = state.refusal(key, limit) if state else None
        if refusal is not None:
            self._refuse(refusal, store, scope, key, limit)
        kind.authorize(context_id, prepared)
        reservation = store.reserve(scope, key, limit, requested_at)
        if not isinstance(reservation, Reserved):
            self._refuse(reservation, store, scope, key, limit)

        try:
            result = execute(prepared)
            kind.assert_result(context_id, result)
        except Exception:
            self._release(store, scope, key)
            raise
        item_ids = [kind.source_id(element) for element in result]
        names = store.complete(scope, key, item_ids, self._now())
        receipt = Receipt(
            sequence=reservation.sequence,
            query_key=key,
            session_id=session_id,
            requested_at=iso(requested_at),
            completed_at=iso(self._now()),
            source_ids=list(dict.fromkeys(names[item_id] for item_id in item_ids)),
        )
        receipt = self._run_effects(EffectInput(context_id, prepared, result, receipt, names))
        return Outcome(result, receipt, names)

    def describe(self, *, context_id: str, session_id: str, claim_limit: int | None = None) -> SessionView:
        """The read model behind ``GET /v1/sessions/{session_id}``, for the caller's context only."""
        state = self._store.load(SessionScope(context_id, session_id), self._now())
        if state is None:
            raise SessionNotFoundError()
        return SessionView(
            session_id=session_id,
            count=state.successful,
            limit=self._config.effective_limit(claim_limit, None),
            sources=[SessionSource(name=name, id=item_id) for item_id, name in state.names().items()],
        )

    def _session(self, context_id: str, session_id: str | None) -> tuple[SessionStore, SessionScope]:
        if session_id is None:
            ttl = timedelta(seconds=self._config.ttl_seconds)
            return InMemorySessionStore(ttl), SessionScope(context_id, REQUEST_LOCAL_SESSION)
        return self._store, SessionScope(context_id, session_id)

    def _refuse(
        self,
        refusal: AlreadySeen | OverBudget,
        store: SessionStore,
        scope: SessionScope,
        key: str,
        limit: int,
    ) -> NoReturn:
        if isinstance(refusal, AlreadySeen):
            raise DuplicateQueryError(key, None if refusal.sequence == REJECTED else refusal.sequence)
        store.mark_seen(scope, key, self._now())
        raise SessionBudgetExhaustedError(limit, refusal.used)

    def _release(self, store: SessionStore, scope: SessionScope, key: str) -> None:
        """Free the slot of a failed read; a failure here must not mask the read's own error."""
        try:
            store.release(scope, key, self._now())
        except Exception:
            logger.exception("could not release a session slot; it stays taken until the session expires")

    def _run_effects(self, effect_input: EffectInput[T]) -> Receipt:
        extensions: dict[str, Any] = {}
        failed: list[str] = []
        for name, effect in self._kind.effects.items():
            try:
                fields = dict(effect(effect_input))
                json.dumps(fields, allow_nan=False)
            except Exception:
                logger.exception("receipt effect %r failed", name)
                failed.append(name)
            else:
                extensions[name] = fields
        return effect_input.receipt.model_copy(update={"extensions": extensions, "failed_effects": failed})
