"""A request without a session is one query alone (``state.ONE_QUERY``): it answers exactly what a fresh
in-memory session store answers, without one built per request."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from retrieval_core.policy.memory import InMemorySessionStore
from retrieval_core.policy.state import ONE_QUERY, Attempt, SessionScope

NOW = datetime(2026, 12, 4, tzinfo=UTC)
IDS = st.lists(st.sampled_from([f"acme:item-{n}" for n in range(8)]), max_size=12)


@given(item_ids=IDS, limit=st.integers(min_value=1, max_value=5))
def test_one_query_names_and_admits_as_a_fresh_store_does(item_ids: list[str], limit: int) -> None:
    attempt = Attempt(SessionScope("acme", "request-local"), "key", None)
    fresh = InMemorySessionStore()
    assert ONE_QUERY.admit(attempt, limit, NOW) == fresh.admit(attempt, limit, NOW)
    assert ONE_QUERY.complete(attempt, item_ids, limit, NOW, None) == fresh.complete(
        attempt, item_ids, limit, NOW, None
    )
    assert ONE_QUERY.load(attempt.scope, NOW) is None
