"""The contexts the local stack holds items of, with a count each: what ``retrieval serve`` offers a dev
token for, and what ``retrieval search`` names when the context asked holds nothing (a typo in
``--context`` is then not mistaken for a bad question). Development code with the operator's view of
the whole index: no function answers a caller with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval_core.config import Settings

LISTED = 1000
"""At most this many contexts are counted (the largest first)."""
SHOWN = 12
"""At most this many are named in a line; the rest are counted."""


class ContextsUnreadableError(Exception):
    """The index could not be asked (the stack is down): the caller says so, or says nothing."""


def local_contexts(settings: Settings) -> dict[str, int]:
    """Each context with items in the deployment's index (every alias of its layout), and how many."""
    from retrieval_core.adapters.opensearch.client import IndexLayout, shared_client

    body = {"size": 0, "aggs": {"contexts": {"terms": {"field": "context_id", "size": LISTED}}}}
    try:
        answer = shared_client(settings).search(
            index=IndexLayout.of(settings).alias_pattern,
            body=body,
            params={"ignore_unavailable": "true", "allow_no_indices": "true"},
        )
    except Exception as error:  # any client or connection failure: the caller decides what to say
        raise ContextsUnreadableError(f"{type(error).__name__}: {str(error)[:200]}") from error
    buckets = answer.get("aggregations", {}).get("contexts", {}).get("buckets", [])
    return {bucket["key"]: int(bucket["doc_count"]) for bucket in buckets}


def named(contexts: dict[str, int]) -> str:
    """``acme (120 items), globex (80 items)`` and ``and 3 more``; "none" when there are none."""
    if not contexts:
        return "none"
    shown = [
        f"{name} ({count:,} item{'s' if count != 1 else ''})"
        for name, count in list(contexts.items())[:SHOWN]
    ]
    more = len(contexts) - SHOWN
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
