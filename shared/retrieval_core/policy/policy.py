"""The policy around one query: every accepted query is new to its session, fits its budget, is
authorized, and comes back with a receipt.

Two calls, each one round trip to the session store, with the work between them in the caller's hands::

    admitted = policy.admit(question, context_id=..., session_id=...)   # or a Replay: send it back
    try:
        hits = ...the search...
        outcome = policy.complete(admitted, hits, answer=kept_bytes)
    except BaseException:
        policy.abandon(admitted)
        raise

``admit``: prepare -> key (validates) -> the store's admission (the idempotency key's replay, reuse or
lock, then duplicate and budget checks) -> authorize. ``complete``: assert the hits -> the store's
completion (atomic: counts the answer within the budget, names its sources and keeps an idempotent
request's answer beside its receipt) -> receipt -> effects. ``abandon`` releases the idempotency key's
lock of a query that failed between the two: it does not count and may be asked again.

What the policy calls at each step is a ``RetrievalKind``, defined by its ports; ``HITS`` is the kind
every search endpoint uses.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, NoReturn

from ..context import owns_all
from ..models.hits import Hit
from ..models.vocabulary import iso
from .config import PolicyConfig
from .errors import (
    DuplicateQueryError,
    IdempotencyKeyReusedError,
    InvalidQueryError,
    RequestInProgressError,
    SessionBudgetExhaustedError,
    SessionNotFoundError,
    UnusableResultError,
)
from .query import checked_key, prepare_query
from .receipt import Effect, EffectInput, Outcome, Receipt, Replay
from .state import (
    ONE_QUERY,
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

logger = logging.getLogger(__name__)


def allow_within_context(context_id: str, query: Mapping[str, Any]) -> None:
    """The default resource authorization: allow. Every read filters on the caller's context inside the
    backend query, so an id from another context finds nothing, exactly as a missing id does; refusing
    it instead would tell the two apart. A deployment with finer rules (per kind, per entity) plugs in
    its own check here and raises ``QueryForbiddenError``."""


def assert_hits(context_id: str, result: Sequence[Any]) -> None:
    """The read must return a list of ``Hit`` from the caller's context; anything else is a bug and is
    refused before it can be cited (a foreign hit would be an isolation breach)."""
    if not isinstance(result, list) or not all(isinstance(hit, Hit) for hit in result):
        logger.error("retrieval returned a non-hit result of type %s", type(result).__name__)
        raise UnusableResultError()
    if not owns_all(context_id, [hit.id for hit in result]):
        logger.error("retrieval returned a hit outside the caller's context")
        raise UnusableResultError()


hit_id: Callable[[Hit], str] = attrgetter("id")


@dataclass(frozen=True, slots=True)
class RetrievalKind:
    """The ports the policy calls, in order: prepare, key, authorize (at admission), assert_result,
    source_id, effects (at completion). Session state, the limit and the clock belong to the policy."""

    prepare: Callable[[Any], Any] = prepare_query
    """Normalize the raw query (synchronous, total: malformed input passes through to ``key``)."""
    key: Callable[[Any], str] = checked_key
    """The dedup key of a prepared query; raises ``InvalidQueryError`` for a malformed one."""
    authorize: Callable[[str, Mapping[str, Any]], None] = allow_within_context
    """Raise a ``ForbiddenError`` when the caller (by context id) may not use what the query names."""
    assert_result: Callable[[str, Sequence[Hit]], None] = assert_hits
    """Raise ``UnusableResultError`` when the read returned something that cannot be cited."""
    source_id: Callable[[Hit], str] = hit_id
    """The underlying id of one result element; the session names it ``S{n}`` in the receipt."""
    effects: Mapping[str, Effect] = field(default_factory=dict)
    """Named handlers run after the receipt is built, in order; a failure is logged and listed."""


HITS = RetrievalKind()

REQUEST_LOCAL_SESSION = "request-local"
"""The scope name of a sessionless request's throwaway state."""


@dataclass(frozen=True, slots=True)
class Ticket:
    """A query the session admitted, until it is completed or abandoned."""

    store: SessionStore
    attempt: Attempt
    context_id: str
    session_id: str | None
    query: Mapping[str, Any]
    """The prepared query (what effects see)."""
    limit: int
    requested_at: datetime

    @property
    def key(self) -> str:
        return self.attempt.key


def kept_answer(answer: bytes, receipt: Receipt) -> bytes:
    """What the session store keeps for a replay: the receipt the caller got (one line of JSON), then the
    caller's answer as it rendered it."""
    return receipt.model_dump_json().encode() + b"\n" + answer


def replay_of(kept: bytes) -> Replay | None:
    """The replay a kept answer makes; None for one kept before receipts were kept beside answers (a
    whole response, one line): answered like an answer too large to keep."""
    receipt, newline, answer = kept.partition(b"\n")
    return Replay(answer, Receipt.model_validate_json(receipt)) if newline else None


def session_limit(config: PolicyConfig, claim_limit: int | None, request_limit: int | None) -> int:
    """The configured limit, lowered by the caller's claim and then by the request; never raised."""
    limits = [config.limit]
    for name, value in (("session limit claim", claim_limit), ("session_limit", request_limit)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidQueryError(f"{name} must be a positive integer.")
        limits.append(value)
    return min(limits)


def utc_now() -> datetime:
    return datetime.now(UTC)


class RetrievalPolicy:
    """Admits and completes queries against session state in ``store`` (sessions with an id), or as a
    query alone (``state.ONE_QUERY``: requests without one). Thread-safe when the store is."""

    def __init__(
        self,
        store: SessionStore,
        config: PolicyConfig | None = None,
        kind: RetrievalKind = HITS,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self._store = store
        self._config = config or PolicyConfig()
        self._kind = kind
        self._now = now

    def admit(
        self,
        query: Mapping[str, Any],
        *,
        context_id: str,
        session_id: str | None = None,
        claim_limit: int | None = None,
        request_limit: int | None = None,
        principal: str | None = None,
        idempotency_key: str | None = None,
    ) -> Ticket | Replay:
        """The admitted query, or the kept answer (and receipt) of an idempotent request sent again
        (nothing runs, nothing counts). ``principal`` (the authorizer's caller, when it names one) binds
        the session to that caller; an ``idempotency_key`` needs a session.

        Raises ``InvalidQueryError`` (422), ``IdempotencyKeyReusedError`` (422), ``DuplicateQueryError``
        (409), ``RequestInProgressError`` (409), ``SessionBudgetExhaustedError`` (429) and
        ``QueryForbiddenError`` (403)."""
        requested_at = self._now()
        prepared = self._kind.prepare(query)
        key = self._kind.key(prepared)
        limit = session_limit(self._config, claim_limit, request_limit)
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
            replay = None if admission.answer is None else replay_of(admission.answer)
            if replay is None:
                raise DuplicateQueryError(key, admission.sequence, kept=False)
            return replay
        if not isinstance(admission, Admitted):
            self._refuse(admission, key, limit)
        ticket = Ticket(store, attempt, context_id, session_id, prepared, limit, requested_at)
        try:
            self._kind.authorize(context_id, prepared)
        except BaseException:
            self.abandon(ticket)
            raise
        return ticket

    def complete(self, ticket: Ticket, hits: Sequence[Hit], *, answer: bytes | None = None) -> Outcome:
        """Count ``hits`` as the query's answer and return its receipt and names; with an idempotency key,
        ``answer`` (the caller's rendering of it) is kept beside the receipt for replays.

        Raises ``UnusableResultError`` (500) for hits that cannot be cited, ``DuplicateQueryError`` (409)
        or ``SessionBudgetExhaustedError`` (429) when the session answered it meanwhile or spent its
        budget; whatever the session write raises propagates. Every failure abandons the ticket."""
        try:
            self._kind.assert_result(ticket.context_id, hits)
            item_ids = [self._kind.source_id(hit) for hit in hits]
            completed_at = self._now()

            def receipt(completed: Completed) -> Receipt:
                return self._receipt(ticket, item_ids, completed, completed_at)

            def keep(completed: Completed) -> bytes:
                assert answer is not None
                return kept_answer(answer, receipt(completed))

            kept = keep if answer is not None and ticket.attempt.idempotency_key is not None else None
            completion = ticket.store.complete(ticket.attempt, item_ids, ticket.limit, completed_at, kept)
        except BaseException:
            self.abandon(ticket)
            raise
        if not isinstance(completion, Completed):
            self._refuse(completion, ticket.key, ticket.limit)
        effect_input = EffectInput(
            ticket.context_id, ticket.query, hits, receipt(completion), completion.names
        )
        return Outcome(self._run_effects(effect_input), completion.names)

    def abandon(self, ticket: Ticket) -> None:
        """Drop the idempotency key's lock of a query that failed: it does not count, the key is free. A
        failure here must not mask the query's own error (the lock then lapses after ``LOCK_TIMEOUT`` in
        the DynamoDB store)."""
        try:
            ticket.store.release(ticket.attempt, self._now())
        except Exception:
            logger.exception("could not release an idempotency key's lock")

    def _receipt(
        self, ticket: Ticket, item_ids: Sequence[str], completed: Completed, completed_at: datetime
    ) -> Receipt:
        """A function of the completion (its sequence and names) alone: the answer kept for replays holds
        the very receipt the caller gets."""
        return Receipt(
            sequence=completed.sequence,
            query_key=ticket.key,
            session_id=ticket.session_id,
            requested_at=iso(ticket.requested_at),
            completed_at=iso(completed_at),
            source_ids=list(dict.fromkeys(completed.names[item_id] for item_id in item_ids)),
        )

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
            limit=session_limit(self._config, claim_limit, None),
            sources=[SessionSource(name=name, id=item_id) for item_id, name in state.names().items()],
        )

    def _session(
        self, context_id: str, session_id: str | None, principal: str | None
    ) -> tuple[SessionStore, SessionScope]:
        if session_id is None:
            return ONE_QUERY, SessionScope(context_id, REQUEST_LOCAL_SESSION)
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

    def _run_effects(self, effect_input: EffectInput) -> Receipt:
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
