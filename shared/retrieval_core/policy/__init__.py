"""The retrieval policy: an agent calling retrieve in a loop never asks the same question twice in a
session, never spends more than its budget, and gets a citable receipt for every accepted query.

Use (``retrieval/service.py``)::

    config = PolicyConfig(limit=settings.session_limit, ttl_seconds=settings.session_ttl_seconds)
    policy = RetrievalPolicy(DynamoSessionStore.from_settings(settings), config)
    admitted = policy.admit(
        request_query,                        # the JSON query (session fields are ignored for the key)
        context_id=caller.context_id,
        session_id=session_id,                # ``session_id`` or ``X-Retrieval-Session``; None: no dedup
        idempotency_key=key,                  # optional (needs a session): a repeat gets a Replay
        claim_limit=claim_limit,              # from the authorizer claim, or None
        request_limit=body.get("session_limit"),
    )
    if isinstance(admitted, Replay): ...      # the kept answer and its receipt: send them back
    try:
        hits = search()
    except BaseException:
        policy.abandon(admitted)              # the query does not count; its key is free again
        raise
    outcome = policy.complete(admitted, hits, answer=answer_bytes)   # answer: kept for the key's repeats
    # outcome.receipt.source_ids are the session names ("S1", ...); outcome.names maps hit.id -> name.

    policy.describe(context_id=..., session_id=..., claim_limit=...)   # GET /v1/sessions/{session_id}

The limit is ``min(settings, claim, request)``. Sessions live in the caller's context only; a foreign or
unknown session is ``SessionNotFoundError`` (404). Refusals: ``DuplicateQueryError`` (409,
``duplicate_query``), ``SessionBudgetExhaustedError`` (429, ``session_budget_exhausted``),
``RequestInProgressError`` (409, ``request_in_progress``), ``IdempotencyKeyReusedError`` (422,
``idempotency_key_reused``),
``QueryForbiddenError`` (403, raised by a deployment's own ``authorize``; the default allows, since
every read is scoped to the caller's context and a foreign id must look like a missing one),
``InvalidQueryError`` (422). All subclass ``PolicyError``.
A kind's ports (``RetrievalKind``) can be replaced one by one; ``HITS`` is the default.
"""

from .config import PolicyConfig
from .errors import (
    DuplicateQueryError,
    IdempotencyKeyReusedError,
    InvalidQueryError,
    PolicyError,
    QueryForbiddenError,
    RequestInProgressError,
    SessionBudgetExhaustedError,
    SessionNotFoundError,
    UnusableResultError,
)
from .memory import InMemorySessionStore
from .policy import HITS, RetrievalKind, RetrievalPolicy
from .receipt import Effect, EffectInput, Outcome, Receipt, Replay
from .state import SessionScope, SessionState, SessionStore, SessionView

__all__ = [
    "HITS",
    "DuplicateQueryError",
    "Effect",
    "EffectInput",
    "IdempotencyKeyReusedError",
    "InMemorySessionStore",
    "InvalidQueryError",
    "Outcome",
    "PolicyConfig",
    "PolicyError",
    "QueryForbiddenError",
    "Receipt",
    "Replay",
    "RequestInProgressError",
    "RetrievalKind",
    "RetrievalPolicy",
    "SessionBudgetExhaustedError",
    "SessionNotFoundError",
    "SessionScope",
    "SessionState",
    "SessionStore",
    "SessionView",
    "UnusableResultError",
]
