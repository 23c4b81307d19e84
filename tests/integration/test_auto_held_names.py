"""auto mode with the context's dictionary held in the function (``RETRIEVAL_QUESTION_NAMES=held``) on the
real stack: it reads questions as the lookup does, never links another context's names, and asks
hybrid's arms and the focus arms in one round trip once the copy is held."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core import bootstrap
from retrieval_core.config import Settings

from dev.sample import known

NOW = "2026-06-01T09:00:00Z"
QUESTIONS = [
    "What did Dmitri Volkov deploy before April?",
    f"What does {known.COLLIDING_NAMES[0].name} do?",
    "Which services did the Payments team ship?",
]


def ask(ctx: str, text: str) -> dict[str, Any]:
    status, body = retrieve(ctx, {"mode": "auto", "now": NOW, "text": text, "top_k": 20})
    assert status == 200, body
    return body


def reading(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i["span"], i["became"], i["value"]) for i in body["applied"]["inferred"]]


@pytest.fixture
def answers(corpus_settings: Settings) -> Iterator[dict[str, dict[tuple[str, str], dict[str, Any]]]]:
    found: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for names in ("lookup", "held"):
        with bootstrap.use(bootstrap.Container(corpus_settings.model_copy(update={"question_names": names}))):
            found[names] = {(ctx, q): ask(ctx, q) for ctx in known.CONTEXTS for q in QUESTIONS}
    yield found


def test_held_names_read_each_question_as_the_lookup_and_rank_the_same(
    answers: dict[str, dict[tuple[str, str], dict[str, Any]]],
) -> None:
    for key, looked_up in answers["lookup"].items():
        held = answers["held"][key]
        assert reading(held) == reading(looked_up), key
        assert [h["id"] for h in held["hits"]] == [h["id"] for h in looked_up["hits"]], key


def test_held_names_never_link_another_contexts_names(corpus_settings: Settings) -> None:
    with bootstrap.use(bootstrap.Container(corpus_settings.model_copy(update={"question_names": "held"}))):
        # Sven Larsen and Kestrel Trucking exist only in globex.
        body = ask("acme", "What did Sven Larsen deploy for Kestrel Trucking?")
        assert [i for i in reading(body) if i[1] == "entity"] == []
        assert body["hits"] and all(hit["id"].startswith("acme:") for hit in body["hits"])
        assert "globex" not in json.dumps(body)


def test_held_names_ask_everything_in_one_round_trip_once_held(corpus_settings: Settings) -> None:
    with bootstrap.use(bootstrap.Container(corpus_settings.model_copy(update={"question_names": "held"}))):
        store = bootstrap.container().store
        ask("acme", "What does Dmitri Volkov own?")  # the first question reads the dictionary whole
        before = store.backend_calls
        body = ask("acme", "What did Dmitri Volkov deploy before April?")
        assert [i[2] for i in reading(body) if i[1] == "entity"] == ["acme:person/dmitri-volkov"]
        assert store.backend_calls - before == 1
