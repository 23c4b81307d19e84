"""One retrieval kind, defined by its ports. ``HITS`` is the kind every search endpoint uses."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from ..context import owns_all
from ..models.hits import Hit
from .errors import UnusableResultError
from .query import checked_key, prepare_query
from .receipt import Effect

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
