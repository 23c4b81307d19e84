"""The policy run: every accepted query is new to its session, fits its budget, is authorized, and
comes back with a receipt.

Order: prepare -> key (validates) -> admit (one round trip: the idempotency key's replay, reuse or lock,
then duplicate and budget checks) -> authorize -> execute -> assert_result -> complete (one round trip,
atomic: counts the answer within the budget, names its sources and keeps an idempotent request's answer)
-> receipt -> effects. Whatever fails after the admission, the search or the session write, releases the
idempotency key's lock: a failed query does not count and may be asked again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, NoReturn, TypeVar

from ..models.vocabulary import iso
from .config import PolicyConfig
from .errors import (
    DuplicateQueryError,
    IdempotencyKeyReusedError,
    InvalidQueryError,
    RequestInProgressError,
    SessionBudgetExhaustedError,
    SessionNotFoundError,
)
from .kind import HITS, RetrievalKind
from .memory import InMemorySessionStore
from .receipt import EffectInput, Outcome, Receipt, Replay
from .state import (
    Admission,
    Admitted,
    AlreadySeen,
    Attempt,
    Completed,
    Completion,
    InProgress,
    KeyReused,
    OverBudget,
    Replayed,
    SessionScope,
    SessionSource,
    SessionStore,
    SessionView,
)

T = TypeVar("T")
R = TypeVar("R")
logger = logging.getLogger(__name__)

REQUEST_LOCAL_SESSION = "request-local"
"""The scope name of a sessionless request's throwaway state."""


def _itself(result: Any) -> Any:
    return result


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
        principal: str | None = None,
        idempotency_key: str | None = None,
        keep: Callable[[Outcome[R]], bytes] | None = None,
        execute: Callable[[Mapping[str, Any]], R],
        evidence: Callable[[R], Sequence[T]] = _itself,
    ) -> Outcome[R] | Replay:
        """Run ``execute(prepared_query)`` under the policy and return its result, receipt and names.
        ``evidence`` picks the result's cited elements (the result itself when it is the list of them).
        ``principal`` (the authorizer's caller, when it names one) binds the session to that caller.
        With an ``idempotency_key`` (a session is required) the answer ``keep`` renders from the outcome
        is kept, and the same request sent again returns it as a ``Replay`` without running or counting.

        Raises ``InvalidQueryError`` (422), ``IdempotencyKeyReusedError`` (422), ``DuplicateQueryError``
        (409), ``RequestInProgressError`` (409), ``SessionBudgetExhaustedError`` (429),
        ``QueryForbiddenError`` (403), ``UnusableResultError`` (500); whatever ``execute`` or the session
        write raises propagates unchanged after the idempotency key's lock is released.
        """
        kind = self._kind
        requested_at = self._now()
        prepared = kind.prepare(query)
        key = kind.key(prepared)
        limit = self._config.effective_limit(claim_limit, request_limit)
        if idempotency_key is not None and session_id is None:
            raise InvalidQueryError(
                "idempotency_key needs a session_id: without a session nothing is kept to replay "
                "(a request without one counts nothing, so it may simply be sent again).",
                field="idempotency_key",
            )
        store, scope = self._session(context_id, session_id, principal)
        attempt = Attempt(scope, key, idempotency_key)

        admission = store.admit(attempt, limit, requested_at)
        if isinstance(admission, Replayed):
            if admission.answer is None:
                raise DuplicateQueryError(key, admission.sequence, kept=False)
            return Replay(admission.answer)
        if not isinstance(admission, Admitted):
            self._refuse(admission, key, limit)

        try:
            kind.authorize(context_id, prepared)
            result = execute(prepared)
            cited = evidence(result)
            kind.assert_result(context_id, cited)
            item_ids = [kind.source_id(element) for element in cited]

            receipts: dict[int, Receipt] = {}

            def receipt_of(completed: Completed) -> Receipt:
                """One receipt per sequence: the answer kept for replays holds the one returned."""
                if completed.sequence not in receipts:
                    receipts[completed.sequence] = Receipt(
                        sequence=completed.sequence,
                        query_key=key,
                        session_id=session_id,
                        requested_at=iso(requested_at),
                        completed_at=iso(self._now()),
                        source_ids=list(dict.fromkeys(completed.names[item_id] for item_id in item_ids)),
                    )
                return receipts[completed.sequence]

            kept = None if keep is None else (lambda c: keep(Outcome(result, receipt_of(c), c.names)))
            completion = store.complete(attempt, item_ids, limit, self._now(), kept)
        except BaseException:
            self._release(store, attempt)
            raise
        if not isinstance(completion, Completed):
            self._refuse(completion, key, limit)
        receipt = receipt_of(completion)
        receipt = self._run_effects(EffectInput(context_id, prepared, cited, receipt, completion.names))
        return Outcome(result, receipt, completion.names)

    def describe(
        self,
        *,
        context_id: str,
        session_id: str,
        claim_limit: int | None = None,
        principal: str | None = None,
    ) -> SessionView:
        """The read model behind ``GET /v1/sessions/{session_id}``, for the caller's own sessions only: a
        session of another context or principal is not found, exactly like an unknown one."""
        state = self._store.load(SessionScope(context_id, session_id, principal), self._now())
        if state is None:
            raise SessionNotFoundError()
        return SessionView(
            session_id=session_id,
            count=state.successful,
            limit=self._config.effective_limit(claim_limit, None),
            sources=[SessionSource(name=name, id=item_id) for item_id, name in state.names().items()],
        )

    def _session(
        self, context_id: str, session_id: str | None, principal: str | None
    ) -> tuple[SessionStore, SessionScope]:
        if session_id is None:
            ttl = timedelta(seconds=self._config.ttl_seconds)
            return InMemorySessionStore(ttl), SessionScope(context_id, REQUEST_LOCAL_SESSION)
        return self._store, SessionScope(context_id, session_id, principal)

    @staticmethod
    def _refuse(refusal: Admission | Completion, key: str, limit: int) -> NoReturn:
        if isinstance(refusal, AlreadySeen):
            raise DuplicateQueryError(key, refusal.sequence)
        if isinstance(refusal, OverBudget):
            raise SessionBudgetExhaustedError(limit, refusal.used)
        if isinstance(refusal, InProgress):
            raise RequestInProgressError()
        if isinstance(refusal, KeyReused):
            raise IdempotencyKeyReusedError()
        raise TypeError(f"not a refusal: {refusal!r}")

    def _release(self, store: SessionStore, attempt: Attempt) -> None:
        """Drop the idempotency key's lock of a failed query; a failure here must not mask the query's own
        error (the lock then lapses after ``LOCK_TIMEOUT`` in the DynamoDB store)."""
        try:
            store.release(attempt, self._now())
        except Exception:
            logger.exception("could not release an idempotency key's lock")

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
        if not extensions and not failed:
            return effect_input.receipt
        return effect_input.receipt.model_copy(update={"extensions": extensions, "failed_effects": failed})
