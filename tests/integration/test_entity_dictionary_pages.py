"""The entity dictionary an ingest reads from the real node (issue 66): every entry, however many (read
in pages, no cap), and the entries of the items created since a moment (what a warm ingest container
reads to learn what other writers added)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from retrieval_core.adapters.opensearch import question_queries
from retrieval_core.bootstrap import Container
from retrieval_core.config import Settings
from stack_state import load_lines


def named(item_id: str, names: list[str], created_at: str) -> str:
    return json.dumps(
        {
            "id": item_id,
            "context_id": "acme",
            "kind": "proposition",
            "text": f"{item_id} names {' and '.join(names)}.",
            "created_at": created_at,
            "mentions": [{"entity_id": f"acme:e/{n}", "name": n, "type": "Thing"} for n in names],
        }
    )


def test_the_dictionary_is_read_whole_in_pages_and_since_a_moment(
    fresh_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = [named(f"acme:p-{n}", [f"Old{n}a", f"Old{n}b"], "2026-01-01T00:00:00Z") for n in range(4)]
    new = [named("acme:p-new", ["Newcomer"], "2026-06-01T00:00:00Z")]
    assert load_lines(fresh_settings, [*old, *new]).ok
    monkeypatch.setattr(question_queries, "DICTIONARY_PAGE", 3)  # nine entries: four pages of three
    store = Container(fresh_settings).store
    whole = store.entity_names("acme")
    assert len(whole) == 9 and {e.name for e in whole} >= {"Old0a", "Old3b", "Newcomer"}
    since = store.entity_names_since("acme", datetime(2026, 3, 1, tzinfo=UTC))
    assert [(e.entity_id, e.name, e.type) for e in since] == [("acme:e/Newcomer", "Newcomer", "Thing")]
    assert store.entity_names("globex") == []
