"""The retrieve service's composition of the session policy, for the tests of the policy itself: one
call that admits, searches and completes (``retrieval/service.py`` does the same with the pager)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from retrieval_core.models.hits import Hit
from retrieval_core.policy import Receipt, Replay, RetrievalPolicy


class Ran(NamedTuple):
    """A completed query as a test sees it: the hits the search returned, their receipt and names."""

    result: list[Hit]
    receipt: Receipt
    names: dict[str, str]


def run_policy(
    policy: RetrievalPolicy,
    query: Mapping[str, Any],
    *,
    execute: Callable[[Mapping[str, Any]], list[Hit]],
    keep: Callable[[list[Hit]], bytes] | None = None,
    **admission: Any,
) -> Ran | Replay:
    """The retrieve service's composition of the policy (``retrieval/service.py``): admit, search (here
    ``execute``), complete, abandoning the ticket when the search fails."""
    admitted = policy.admit(query, **admission)
    if isinstance(admitted, Replay):
        return admitted
    try:
        hits = execute(admitted.query)
    except BaseException:
        policy.abandon(admitted)
        raise
    outcome = policy.complete(admitted, hits, answer=None if keep is None else keep(hits))
    return Ran(hits, outcome.receipt, outcome.names)
