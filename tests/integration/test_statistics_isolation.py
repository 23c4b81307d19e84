"""The probe of issue 15, reproduced: another context's writes must not move a context's scores.

In the silo model acme's lexical score and its ranking stay bit-identical while globex loads, updates and
deletes documents that share acme's words. In the pool model they share one index (the backend's raw
BM25 score does move, which is why the control test checks it), so responses carry ranks only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch import queries
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.config import Settings
from retrieval_core.ports import SearchFilters
from stack_state import load_lines

from dev.tables import scratch_space

WORD = "idempotency"
ACME = [
    f"{WORD} keys make payment retries safe",
    f"the ledger checks {WORD} before posting a journal entry",
    f"{WORD} {WORD} is the first rule of the payments API",
    "retries without keys double charge a card",
    f"card refunds reuse the {WORD} key of the charge",
]
REQUESTS = [
    # One pass first: its lexical signals are compared with the backend's own BM25 for the same query.
    {"mode": "lexical", "text": WORD, "top_k": 10, "feedback": {"enabled": False}},
    {"mode": "lexical", "text": WORD, "top_k": 10},
    {"mode": "lexical", "text": f"{WORD} keys retries", "top_k": 10},
    {"mode": "hybrid", "text": f"{WORD} keys retries", "top_k": 10},
]


def item(context_id: str, number: int, text: str) -> str:
    return json.dumps(
        {
            "id": f"{context_id}:p-{number:04d}",
            "context_id": context_id,
            "kind": "proposition",
            "text": text,
            "created_at": "2026-03-02T09:00:00Z",
        }
    )


def globex(version: str) -> list[str]:
    """30 globex items that share acme's words; ``version`` changes their texts (an update)."""
    return [item("globex", n, f"{WORD} {version} {WORD} keys for order {n} retries") for n in range(30)]


@contextmanager
def acme_loaded(stack_settings: Settings, model: str) -> Iterator[Settings]:
    """Fresh tables and indices in ``model`` holding acme's items, the handlers pointed at them."""
    base = stack_settings.model_copy(update={"isolation_model": model})
    with scratch_space(base, "s") as settings, bootstrap.use(bootstrap.Container(settings)):
        assert load_lines(settings, [item("acme", n, text) for n, text in enumerate(ACME)]).ok
        yield settings


@pytest.fixture
def silo(stack_settings: Settings) -> Iterator[Settings]:
    with acme_loaded(stack_settings, "silo") as settings:
        yield settings


@pytest.fixture
def pool(stack_settings: Settings) -> Iterator[Settings]:
    with acme_loaded(stack_settings, "pool") as settings:
        yield settings


def acme_answers() -> str:
    """Every probe request's hits as acme sees them (scores, signals, order), as one exact string."""
    answers = []
    for request in REQUESTS:
        status, body = retrieve("acme", request)
        assert status == 200 and body["hits"], body
        answers.append(body["hits"])
    return json.dumps(answers, sort_keys=True)


def globex_hits() -> int:
    status, body = retrieve("globex", {"mode": "lexical", "text": WORD, "top_k": 10})
    assert status == 200, body
    return len(body["hits"])


def delete_globex(settings: Settings, opensearch: Any) -> None:
    """Delete globex's documents by id and expunge them, so no deleted document lingers in statistics."""
    alias = IndexLayout.of(settings).alias("globex")
    ids = [f"globex:p-{n:04d}" for n in range(30)]
    actions = [{"delete": {"_index": alias, "_id": item_id, "routing": "globex"}} for item_id in ids]
    response = opensearch.bulk(body=actions, refresh=True)
    assert not response["errors"], response
    opensearch.indices.forcemerge(index=alias, only_expunge_deletes=True)
    opensearch.indices.refresh(index=alias)


def raw_bm25(settings: Settings, opensearch: Any) -> dict[str, float]:
    """What the backend itself scores acme's documents for WORD (never part of a pool response)."""
    body = queries.lexical_body("acme", WORD, SearchFilters(size=10), 10)
    response = opensearch.search(index=IndexLayout.of(settings).alias("acme"), body=body, routing="acme")
    return {h["_id"]: h["_score"] for h in response["hits"]["hits"]}


def test_another_contexts_writes_never_move_a_silo_contexts_scores_or_ranking(
    silo: Settings, opensearch: Any
) -> None:
    before = acme_answers()
    # A silo's responses carry the raw BM25 score: exactly what a shared index would move.
    lexical = {h["id"]: h["signals"]["lexical"]["score"] for h in json.loads(before)[0]}
    assert lexical == raw_bm25(silo, opensearch)
    assert load_lines(silo, globex("v1")).ok
    assert globex_hits() == 10  # the writes happened and are searchable, as globex
    assert acme_answers() == before
    assert load_lines(silo, globex("v2 changed")).ok
    assert acme_answers() == before
    delete_globex(silo, opensearch)
    assert globex_hits() == 0
    assert acme_answers() == before


def test_pool_responses_carry_lexical_ranks_never_the_raw_score(pool: Settings, opensearch: Any) -> None:
    raw_before = raw_bm25(pool, opensearch)
    before = acme_answers()
    assert load_lines(pool, globex("v1")).ok
    raw_after = raw_bm25(pool, opensearch)
    # The control: in a shared index the backend's own score does move with globex's writes.
    assert raw_after != raw_before
    for request in REQUESTS:
        _, body = retrieve("acme", request)
        text = json.dumps(body)
        for raw in (*raw_before.values(), *raw_after.values()):
            assert repr(raw) not in text and json.dumps(raw) not in text
        for rank, hit in enumerate(body["hits"], start=1):
            signal = hit["signals"].get("lexical")
            if request["mode"] == "lexical":
                assert signal == {"rank": rank, "score": 1 / rank} and hit["score"] == 1 / rank
            elif signal is not None:
                assert signal["score"] == 1 / signal["rank"]
    assert json.loads(before)[0][0]["signals"]["lexical"] == {"rank": 1, "score": 1.0}
