"""The default query ports: normalize, validate and key a JSON query.

Two queries that differ only in key order, whitespace or the order of ``kinds`` mean the same thing, so
they must get the same dedup key; ``prepare`` removes those differences and ``canonical_key`` hashes
what is left.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .errors import InvalidQueryError

CONTROL_FIELDS = frozenset({"session_id", "session_limit", "context_id"})
"""Request fields that steer the policy or are ignored (the context comes from the caller's identity),
not the read; they must not change the dedup key."""

MAX_QUERY_BYTES = 16_384
"""Largest canonical query accepted; keeps keys, logs and stored state bounded."""

UNORDERED_FIELDS = frozenset({"kinds", "statuses"})
"""List fields whose order (and repeats) carry no meaning."""


def prepare_query(query: Any) -> Any:
    """Normalize a JSON object: collapse whitespace in strings, drop nulls and control fields, sort
    ``kinds``. Anything that is not an object passes through for ``assert_query`` to reject."""
    if not isinstance(query, Mapping):
        return query
    return {
        name: _normalize(value, unordered=name in UNORDERED_FIELDS)
        for name, value in query.items()
        if name not in CONTROL_FIELDS and value is not None
    }


_UNCHANGED = frozenset({int, float, bool, type(None)})


def _normalize(value: Any, *, unordered: bool = False) -> Any:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, Mapping):
        return {k: _normalize(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        # Numbers pass through unchanged: a vector's components skip the call.
        items = [v if type(v) in _UNCHANGED else _normalize(v) for v in value]
        if unordered and all(isinstance(v, str) for v in items):
            return sorted(set(items))
        return items
    return value


def assert_query(query: Any) -> None:
    """Reject anything but a non-empty, finite, JSON-serializable object of at most ``MAX_QUERY_BYTES``."""
    if not isinstance(query, Mapping) or not query:
        raise InvalidQueryError("The query must be a non-empty JSON object.")
    if not all(isinstance(name, str) for name in query):
        raise InvalidQueryError("Query field names must be strings.")
    try:
        size = len(canonical_json(query).encode())
    except (TypeError, ValueError) as exc:
        raise InvalidQueryError("The query must hold JSON values only (finite numbers).") from exc
    if size > MAX_QUERY_BYTES:
        raise InvalidQueryError(f"The query is larger than {MAX_QUERY_BYTES} bytes.")


def canonical_json(query: Mapping[str, Any]) -> str:
    """One spelling per meaning: sorted keys, no insignificant whitespace."""
    return json.dumps(query, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_key(query: Mapping[str, Any]) -> str:
    """The dedup key: a short digest of the canonical JSON (bounded size, and no query text at rest)."""
    return hashlib.sha256(canonical_json(query).encode()).hexdigest()[:32]
