"""auto's focus-arm bodies: a must-match arm keeps the items sharing the question's words, unless none
does (then every item it selects, the most confident first), in one body either way."""

from __future__ import annotations

from typing import Any

from retrieval_core.adapters.opensearch import question_queries
from retrieval_core.ports import Focus, SearchFilters

FOCUS = Focus(entity_ids=("acme:person/zora-quint",), entity_text="role payroll")


def hit(item_id: str, *matched: str, about: str | None = None) -> dict[str, Any]:
    mentions = [] if about is None else [{"entity_id": about, "role": "about", "type": "page"}]
    return {
        "_id": item_id,
        "_source": {"id": item_id, "mentions": mentions},
        "matched_queries": list(matched),
    }


def test_the_entity_arms_word_clause_is_named_and_optional() -> None:
    bodies = question_queries.focus_bodies("acme", FOCUS, SearchFilters(size=10), 10)
    query = bodies["entity"]["query"]["bool"]
    assert "must" not in query
    [clause] = query["should"]
    assert clause["match"]["text"] == {
        "query": "role payroll",
        "minimum_should_match": question_queries.MUST_MATCH_SHARE,
        "_name": question_queries.SHARES_WORDS,
    }
    # The edge arm only ranks by the words: it names no clause, so every item it selects is a member.
    assert "_name" not in bodies["edges"]["query"]["bool"]["should"][0]["match"]["text"]


def test_members_are_the_hits_sharing_the_words_when_any_does() -> None:
    hits = [hit("a", "shares_words"), hit("b"), hit("c", "shares_words")]
    assert [h["_id"] for h in question_queries.members(hits)] == ["a", "c"]


def test_members_are_every_hit_when_none_shares_the_words() -> None:
    assert [h["_id"] for h in question_queries.members([hit("a"), hit("b")])] == ["a", "b"]
    assert question_queries.members([]) == []


def test_a_named_pages_first_own_chunk_leads_the_arm_sharing_words_or_not() -> None:
    hits = [
        hit("mentions", "shares_words"),
        hit("other-page", about="acme:entity/other"),
        hit("own-1", about="acme:entity/markdown"),
        hit("own-2", "shares_words", about="acme:entity/markdown"),
    ]
    found = question_queries.members(hits, ("acme:entity/markdown",))
    # Its first chunk in the arm's order leads; its second is a member as any other sharing the words.
    assert [h["_id"] for h in found] == ["own-1", "mentions", "own-2"]
    # Without pages (the edge and answer arms), the rule is as before.
    assert [h["_id"] for h in question_queries.members(hits)] == ["mentions", "own-2"]
