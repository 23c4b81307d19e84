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
from dataclasses import dataclass
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
    Keep,
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


@dataclass(frozen=True, slots=True)
class _Answer(Generic[R]):
    """A query's result on its way to completion. Its receipt is a function of the completion (its
    sequence and names) alone: the answer kept for replays holds the very receipt the caller gets."""

    result: R
    item_ids: list[str]
    key: str
    session_id: str | None
    requested_at: datetime
    completed_at: datetime
    keep: Callable[[Outcome[R]], bytes] | None

    def receipt(self, completed: Completed) -> Receipt:
        return Receipt(
            sequence=completed.sequence,
            query_key=self.key,
            session_id=self.session_id,
            requested_at=iso(self.requested_at),
            completed_at=iso(self.completed_at),
            source_ids=list(dict.fromkeys(completed.names[item_id] for item_id in self.item_ids)),
        )

    @property
    def kept(self) -> Keep | None:
        """What the session store keeps for replays (None: nothing, the request has no idempotency key's
        ``keep``)."""
        return None if self.keep is None else self._rendered

    def _rendered(self, completed: Completed) -> bytes:
        assert self.keep is not None
        return self.keep(Outcome(self.result, self.receipt(completed), completed.names))


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
        requested_at = self._now()
        prepared = self._kind.prepare(query)
        key = self._kind.key(prepared)
        limit = self._config.effective_limit(claim_limit, request_limit)
        admitted = self._admit(context_id, session_id, principal, key, idempotency_key, limit, requested_at)
        if isinstance(admitted, Replay):
            return admitted
        store, attempt = admitted
        try:
            self._kind.authorize(context_id, prepared)
            result = execute(prepared)
            cited = evidence(result)
            answer = _Answer(
                result, self._source_ids(context_id, cited), key, session_id, requested_at, self._now(), keep
            )
            completion = store.complete(attempt, answer.item_ids, limit, answer.completed_at, answer.kept)
        except BaseException:
            self._release(store, attempt)
            raise
        if not isinstance(completion, Completed):
            self._refuse(completion, key, limit)
        effect_input = EffectInput(context_id, prepared, cited, answer.receipt(completion), completion.names)
        return Outcome(result, self._run_effects(effect_input), completion.names)

    def _admit(
        self,
        context_id: str,
        session_id: str | None,
        principal: str | None,
        key: str,
        idempotency_key: str | None,
        limit: int,
        requested_at: datetime,
    ) -> tuple[SessionStore, Attempt] | Replay:
        """The session's store and the admitted attempt, or the kept answer of a request sent again;
        raises the refusal of any other admission."""
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
        return store, attempt

    def _source_ids(self, context_id: str, cited: Sequence[T]) -> list[str]:
        """The ids of a result's cited elements, once the result is checked."""
        self._kind.assert_result(context_id, cited)
        return [self._kind.source_id(element) for element in cited]

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
