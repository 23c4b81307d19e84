"""On the real index: pseudo-relevance feedback's expansion terms reach the OpenSearch query and find what
the words of the question alone cannot.

The question "zephyrine" is one word that only two items contain; a third item, about the same thing in
other words ("turbine blade cooling ..."), shares none of the question's words, so one-pass BM25 cannot
rank it at all. Only the expansion terms, taken from the first pass's top hits, lead BM25 to it: if
feedback computed its terms but the second search dropped them, these tests fail.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from stack_state import load_lines

CONTEXT = "acme"
ONLY_BY_EXPANSION = "acme:p-fb3"
ITEMS = {
    "acme:p-fb1": "Zephyrine alloy turbine blade cooling channels reduce creep at high temperature.",
    "acme:p-fb2": "The zephyrine coating protects turbine blade cooling passages from oxidation.",
    ONLY_BY_EXPANSION: "Turbine blade cooling passages and channels need an alloy that resists creep.",
    "acme:p-fb4": "Quarterly payroll cut-off moved to the second Friday of the month.",
    "acme:p-fb5": "The cafeteria serves lunch from noon until two.",
}


def _item(item_id: str, text: str) -> str:
    return json.dumps(
        {
            "context_id": CONTEXT,
            "id": item_id,
            "kind": "proposition",
            "text": text,
            "created_at": "2026-02-01T00:00:00Z",
        }
    )


@pytest.fixture
def feedback_corpus(fresh_settings: Settings) -> Any:
    assert load_lines(fresh_settings, [_item(i, t) for i, t in ITEMS.items()]).ok
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        yield fresh_settings


def _ask(mode: str, feedback: dict[str, Any]) -> dict[str, Any]:
    status, body = retrieve(CONTEXT, {"mode": mode, "text": "zephyrine", "top_k": 5, "feedback": feedback})
    assert status == 200, body
    return body


FEEDBACK = {"enabled": True, "docs": 2, "terms": 6, "weight": 0.5, "vector_weight": 0}


def test_lexical_feedback_finds_an_item_only_its_expansion_terms_match(feedback_corpus: Any) -> None:
    one_pass = _ask("lexical", {"enabled": False})
    fed_back = _ask("lexical", FEEDBACK)

    assert {h["id"] for h in one_pass["hits"]} == {"acme:p-fb1", "acme:p-fb2"}  # BM25 on the word alone
    terms = fed_back["applied"]["expansion_terms"]
    assert {"turbine", "blade", "cooling"} <= set(terms), terms
    ranked = [h["id"] for h in fed_back["hits"]]
    assert ranked[:2] == ["acme:p-fb1", "acme:p-fb2"] or ranked[:2] == ["acme:p-fb2", "acme:p-fb1"]
    assert ranked[2] == ONLY_BY_EXPANSION  # shares no word with the question: reached by the terms
    assert not {"acme:p-fb4", "acme:p-fb5"} & set(ranked)  # nothing the terms do not match


def test_hybrid_feedback_puts_the_expansion_terms_into_its_lexical_arm(feedback_corpus: Any) -> None:
    def lexical_arm(body: dict[str, Any]) -> set[str]:
        return {h["id"] for h in body["hits"] if "lexical" in h["signals"]}

    one_pass = _ask("hybrid", {"enabled": False})
    fed_back = _ask("hybrid", FEEDBACK)

    # The vector arm may find the paraphrase either way; only the expansion brings BM25 to it.
    assert ONLY_BY_EXPANSION not in lexical_arm(one_pass)
    assert ONLY_BY_EXPANSION in lexical_arm(fed_back)
    assert fed_back["applied"]["expansion_terms"]
