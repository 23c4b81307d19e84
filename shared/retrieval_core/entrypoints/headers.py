"""The request headers the API reads besides the authorizer's claims (names as documented; HTTP
header names compare case-insensitively)."""

CONTEXT_HEADER = "X-Context-Id"
"""Which of the caller's allowed contexts to act in, when the claims list several."""

SESSION_HEADER = "X-Retrieval-Session"
"""The retrieval session id, when the body carries no ``session_id``."""

IDEMPOTENCY_HEADER = "Idempotency-Key"
"""A retrieve's idempotency key, when the body carries no ``idempotency_key``."""
