"""The default query ports: normalize, validate and key a JSON query.

Two queries that differ only in key order, whitespace or the order of ``kinds`` mean the same thing, so
they must get the same dedup key; ``prepare`` removes those differences and ``canonical_key`` hashes
what is left, spelled member by member (``spelled_member``): canonical JSON, except that a list of
floats (a query vector) is spelled as its IEEE-754 doubles. Writing 384 floats as JSON costs ~0.2 ms
(Python's shortest float ``repr``, one at a time); packing them costs ~10 us, and the spelling is as
exact: two vectors spell alike only when every component is the same double.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
from collections.abc import Mapping
from typing import Any

from .errors import InvalidQueryError

CONTROL_FIELDS = frozenset({"session_id", "session_limit", "context_id", "idempotency_key"})
"""Request fields that steer the policy or are ignored (the context comes from the caller's identity),
not the read; they must not change the dedup key."""

MAX_QUERY_BYTES = 16_384
"""Largest canonical query accepted; keeps keys, logs and stored state bounded."""

UNORDERED_FIELDS = frozenset({"kinds", "statuses"})
"""List fields whose order (and repeats) carry no meaning."""


class PreparedQuestion(dict[str, Any]):
    """A query in normal form. ``prepare_query`` hands one back as it is: a caller that prepared its
    question at the door (the retrieve service does) gets it keyed without a second normalisation.
    Read-only once made: its fields' canonical JSON is written once and kept (``spelled``)."""

    _field_json: dict[str, str] | None = None

    def spelled(self, leaving_out: frozenset[str] = frozenset()) -> str:
        """This question less the ``leaving_out`` fields, its members spelled (``spelled_member``) in
        name order. The page fingerprint and the dedup key spell nearly the same question: a query
        vector is spelled once for both."""
        if self._field_json is None:  # each member, "name":value, spelled once
            self._field_json = {name: spelled_member(name, v) for name, v in self.items()}
        members = self._field_json
        return "{" + ",".join(members[name] for name in sorted(members) if name not in leaving_out) + "}"


def prepare_query(query: Any) -> Any:
    """Normalize a JSON object (``normal_form``); a ``PreparedQuestion`` is already normal, and anything
    that is not an object passes through for ``checked_key`` to reject."""
    if isinstance(query, PreparedQuestion) or not isinstance(query, Mapping):
        return query
    return normal_form(query)


def normal_form(query: Mapping[str, Any]) -> PreparedQuestion:
    """Collapse whitespace in strings, drop nulls and control fields, sort ``kinds`` and ``statuses``."""
    return PreparedQuestion(
        {
            name: _normalize(value, unordered=name in UNORDERED_FIELDS)
            for name, value in query.items()
            if name not in CONTROL_FIELDS and value is not None
        }
    )


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


def checked_key(query: Any) -> str:
    """The dedup key of a prepared query, after rejecting anything but a non-empty, finite,
    JSON-serializable object of at most ``MAX_QUERY_BYTES`` (one canonical spelling serves both: a
    query vector makes it the costliest step of the policy)."""
    if not isinstance(query, Mapping) or not query:
        raise InvalidQueryError("The query must be a non-empty JSON object.")
    if not all(isinstance(name, str) for name in query):
        raise InvalidQueryError("Query field names must be strings.")
    try:
        spelled = canonical_spelling(query).encode()
    except (TypeError, ValueError) as exc:
        raise InvalidQueryError("The query must hold JSON values only (finite numbers).") from exc
    if len(spelled) > MAX_QUERY_BYTES:
        raise InvalidQueryError(f"The query is larger than {MAX_QUERY_BYTES} bytes.")
    return _digest(spelled)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""Made once (``json.dumps`` with options builds an encoder per call)."""


def canonical_json(query: Any) -> str:
    """One JSON spelling per meaning: sorted keys, no insignificant whitespace."""
    return _CANONICAL.encode(query)


FLOATS_PREFIX = "f64:"
"""Starts a list of floats' spelling: no JSON value starts so, so no other value spells alike."""


def spelled_member(name: str, value: Any) -> str:
    """``"name":value``, the value in canonical JSON, or a non-empty list of floats as ``f64:`` and the
    base64 of its little-endian doubles. ``ValueError`` for a number that is not finite, as JSON's."""
    if type(value) is list and value and set(map(type, value)) == {float}:
        if not all(map(math.isfinite, value)):
            raise ValueError("Out of range float values are not JSON compliant")
        doubles = struct.pack(f"<{len(value)}d", *value)
        return f"{canonical_json(name)}:{FLOATS_PREFIX}{base64.b64encode(doubles).decode()}"
    return f"{canonical_json(name)}:{canonical_json(value)}"


def canonical_spelling(query: Mapping[str, Any], leaving_out: frozenset[str] = frozenset()) -> str:
    """``query`` less the ``leaving_out`` fields, spelled as a ``PreparedQuestion`` spells it (a prepared
    one from the member spellings it keeps)."""
    if not isinstance(query, PreparedQuestion):
        query = PreparedQuestion({k: v for k, v in query.items() if k not in leaving_out})
    return query.spelled(leaving_out)


def canonical_key(query: Mapping[str, Any], leaving_out: frozenset[str] = frozenset()) -> str:
    """The dedup key: a short digest of the spelling (``canonical_spelling``: bounded size, and no query
    text at rest) of ``query`` less the ``leaving_out`` fields."""
    return _digest(canonical_spelling(query, leaving_out).encode())


def _digest(spelled: bytes) -> str:
    return hashlib.sha256(spelled).hexdigest()[:32]
