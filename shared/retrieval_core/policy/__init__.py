"""The retrieval policy: an agent calling retrieve in a loop never asks the same question twice in a
session, never spends more than its budget, and gets a citable receipt for every accepted query.

Use::

    config = PolicyConfig(limit=settings.session_limit, ttl_seconds=settings.session_ttl_seconds)
    policy = RetrievalPolicy(DynamoSessionStore.from_settings(settings), config)
    outcome = policy.run(
        request_query,                        # the JSON query (session fields are ignored for the key)
        context_id=caller.context_id,
        session_id=session_id,                # ``session_id`` or ``X-Retrieval-Session``; None: no dedup
        idempotency_key=key,                  # optional (needs a session): a repeat gets a Replay
        keep=lambda outcome: answer_bytes,    # what to keep for that repeat
        claim_limit=claim_limit,              # from the authorizer claim, or None
        request_limit=body.get("session_limit"),
        execute=lambda query: pager.page(prepared),  # any result, e.g. a page of hits
        evidence=lambda page: page.hits,      # its cited elements (default: the result itself)
    )
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
from .kind import HITS, RetrievalKind
from .memory import InMemorySessionStore
from .policy import RetrievalPolicy
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
