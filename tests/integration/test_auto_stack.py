"""auto mode on the real stack: the entity dictionary lives on the item documents in the caller's own
index, so another context's names never link, deletes take names away, inference never widens the
request, and the cost stays within one round trip of hybrid's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from stack_state import load_lines

from dev.sample import known

NOW = "2026-06-01T09:00:00Z"
COLLISION = known.COLLIDING_NAMES[0]


@pytest.fixture
def corpus(corpus_settings: Settings) -> Iterator[Settings]:
    with bootstrap.use(bootstrap.Container(corpus_settings)):
        yield corpus_settings


def ask(ctx: str, **fields: Any) -> dict[str, Any]:
    status, body = retrieve(ctx, {"mode": "auto", "now": NOW} | fields)
    assert status == 200, body
    return body


def entities(body: dict[str, Any]) -> list[str]:
    return [i["value"] for i in body["applied"]["inferred"] if i["became"] == "entity"]


def test_another_contexts_entity_links_nothing_and_only_own_items_return(corpus: Settings) -> None:
    # Sven Larsen and Kestrel Trucking exist only in globex.
    body = ask("acme", text="What did Sven Larsen deploy for Kestrel Trucking?", top_k=50)
    assert entities(body) == []
    assert body["hits"] and all(hit["id"].startswith("acme:") for hit in body["hits"])
    assert "globex" not in json.dumps(body)
    # Asked in globex, the same question links both.
    assert set(entities(ask("globex", text="What did Sven Larsen deploy for Kestrel Trucking?"))) == {
        "globex:person/sven-larsen",
        "globex:vendor/kestrel-trucking",
    }


def test_a_name_both_contexts_use_links_the_callers_own_entity(corpus: Settings) -> None:
    for ctx in known.CONTEXTS:
        body = ask(ctx, text=f"What does {COLLISION.name} do?", top_k=50)
        assert entities(body) == [COLLISION.entity_ids[ctx]]
        assert all(hit["id"].startswith(f"{ctx}:") for hit in body["hits"])


def test_inference_never_widens_statuses_or_the_filter(corpus: Settings) -> None:
    # Carmen Ruiz's interim lead (SUPERSEDED) is what the question names, yet ACTIVE is what was asked.
    body = ask("acme", text="Who led the Payments team as interim manager in 2025?", top_k=100)
    assert {hit["status"] for hit in body["hits"]} == {"ACTIVE"}
    assert body["applied"]["statuses"] == ["ACTIVE"]
    where = {"equals": {"key": "kind", "value": "record"}}
    filtered = ask("acme", text="What did Dmitri Volkov deploy before April?", filter=where, top_k=100)
    assert filtered["hits"] and {hit["kind"] for hit in filtered["hits"]} == {"record"}
    assert filtered["applied"]["filter"]["arms"] == {
        arm: "in_query" for arm in ("lexical", "vector", "entity", "edges", "window")
    }


def test_the_question_is_read_and_the_answer_ranks_first(corpus: Settings) -> None:
    body = ask("acme", text="What did Dmitri Volkov deploy before April?", top_k=3, include=["text"])
    assert [(i["span"], i["became"]) for i in body["applied"]["inferred"]] == [
        ("Dmitri Volkov", "entity"),
        ("deploy", "kind_weight"),
        ("before April", "window"),
    ]
    assert body["hits"][0]["text"].startswith("Deploy ledger-core v7.35.5 | by Dmitri Volkov")


def test_a_typed_question_ranks_the_entitys_items_naming_that_type_first(corpus: Settings) -> None:
    question = "Which customers does Ines Moreau manage?"
    body = ask("globex", text=question, top_k=3, include=["mentions"])
    inferred = [(i["span"], i["became"], i["value"]) for i in body["applied"]["inferred"]]
    assert ("Which customers", "answer_type", "Customer") in inferred
    for hit in body["hits"]:
        names = {m["entity_id"]: m["type"] for m in hit["mentions"]}
        assert "globex:person/ines-moreau" in names and "Customer" in names.values(), hit["id"]
    # Ines Moreau is globex's: asked in acme, nothing links, so no type is asked for either.
    elsewhere = ask("acme", text=question, top_k=50)
    assert [i["became"] for i in elsewhere["applied"]["inferred"] if i["became"] != "kind_weight"] == []
    assert all(hit["id"].startswith("acme:") for hit in elsewhere["hits"])


def test_at_most_one_round_trip_more_than_hybrid(corpus: Settings) -> None:
    store = bootstrap.container().store
    before = store.backend_calls
    status, _ = retrieve("acme", {"mode": "auto", "now": NOW, "text": "Who is Dmitri Volkov?"})
    assert status == 200
    # The container's first question reads the context's dictionary once (names held from then on).
    assert store.backend_calls - before == 2
    costs = {}
    for name, body in {
        "hybrid": {"mode": "hybrid"},
        "hybrid_feedback": {"mode": "hybrid", "feedback": {"enabled": True}},
        "auto": {"mode": "auto", "now": NOW},
        "auto_feedback": {"mode": "auto", "now": NOW, "feedback": {"enabled": True}},
        "auto_uninferred": {"mode": "auto", "now": NOW, "infer": False},
    }.items():
        before = store.backend_calls
        status, _ = retrieve("acme", body | {"text": "What did Dmitri Volkov deploy before April?"})
        assert status == 200
        costs[name] = store.backend_calls - before
    # Auto's text arms are hybrid's, feedback (on request) included; the question is read against the
    # names held before the round trip, and the arms of what it names join hybrid's.
    assert costs == {"hybrid": 1, "hybrid_feedback": 2, "auto": 1, "auto_feedback": 2, "auto_uninferred": 1}


def zora_item(item_id: str, text: str) -> str:
    mention = {"entity_id": "acme:person/zora-quint", "name": "Zora Quint", "type": "Person"}
    return json.dumps(
        {
            "context_id": "acme",
            "id": item_id,
            "kind": "proposition",
            "text": text,
            "mentions": [mention],
            "created_at": "2026-02-01T00:00:00Z",
        }
    )


def test_the_dictionary_follows_loads_and_deletes(fresh_settings: Settings) -> None:
    item = zora_item
    assert load_lines(
        fresh_settings,
        [item("acme:p-z1", "Zora Quint runs payroll."), item("acme:p-z2", "Zora Quint is on leave.")],
    ).ok
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        assert entities(ask("acme", text="What does Zora Quint run?")) == ["acme:person/zora-quint"]
        assert load_lines(fresh_settings, [json.dumps({"op": "delete", "id": "acme:p-z1"})]).ok
        assert entities(ask("acme", text="What does Zora Quint run?")) == ["acme:person/zora-quint"]
        assert load_lines(fresh_settings, [json.dumps({"op": "delete", "id": "acme:p-z2"})]).ok
        assert entities(ask("acme", text="What does Zora Quint run?")) == []


def test_an_entity_arm_member_must_share_most_of_the_questions_other_words(fresh_settings: Settings) -> None:
    about = zora_item("acme:p-z3", "Zora Quint changed the payroll cut-off in February 2026.")
    by_chance = zora_item("acme:p-z4", "Zora Quint badge reissued 2026.")
    assert load_lines(fresh_settings, [about, by_chance]).ok
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        body = ask("acme", text="What changed for Zora Quint in February 2026?", top_k=10, infer=True)
    found_by = {hit["id"]: set(hit["signals"]) for hit in body["hits"]}
    # Two of "changed", "February", "2026" make a member; "2026" alone does not.
    assert "entity" in found_by["acme:p-z3"]
    assert "entity" not in found_by.get("acme:p-z4", set())


def test_an_entity_arm_none_of_whose_items_share_the_words_is_every_item_most_confident_first(
    fresh_settings: Settings,
) -> None:
    sure = json.loads(zora_item("acme:p-z5", "Zora Quint is the payroll lead.")) | {"confidence": 0.9}
    unsure = json.loads(zora_item("acme:p-z6", "Zora Quint joined in 2019.")) | {"confidence": 0.4}
    assert load_lines(fresh_settings, [json.dumps(unsure), json.dumps(sure)]).ok
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        # No item of hers says "role": the question is still about her.
        vague = ask("acme", text="What is Zora Quint's role?", top_k=10)
        # One says "payroll": only that one is a member.
        pointed = ask("acme", text="What does Zora Quint do for payroll?", top_k=10)
    assert entity_ranks(vague) == {"acme:p-z5": 1, "acme:p-z6": 2}
    assert entity_ranks(pointed) == {"acme:p-z5": 1}


def entity_ranks(body: dict[str, Any]) -> dict[str, int]:
    """Each hit's rank in the entity arm, for the hits that arm found."""
    return {hit["id"]: hit["signals"]["entity"]["rank"] for hit in body["hits"] if "entity" in hit["signals"]}


def mentioning(item_id: str, text: str, *names: str) -> str:
    mentions = [
        {"entity_id": f"acme:place/{n.lower().replace(' ', '-')}", "name": n, "type": "Place"} for n in names
    ]
    line = {"context_id": "acme", "id": item_id, "kind": "proposition", "text": text, "mentions": mentions}
    return json.dumps(line | {"created_at": "2026-02-01T00:00:00Z"})


def test_the_name_a_question_gives_outranks_names_common_across_the_corpus(
    fresh_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lookup keeps a few entries (500 deployed): those of the items whose names best share the
    # question's words, not the names most items carry. Here West Virginia and six counties are written
    # on many items; Johnnycake Mountain on one, and only the question names it.
    monkeypatch.setattr("retrieval_core.adapters.opensearch.question_queries.NAME_ENTRIES", 5)
    counties = [f"{name} County" for name in ("Boone", "Clay", "Logan", "Mingo", "Wayne", "Wirt")]
    common = [
        mentioning(f"acme:p-c{n}", f"{county} lies in West Virginia.", county, "West Virginia")
        for n, county in enumerate(counties * 2)
    ]
    rare = mentioning(
        "acme:p-j", "Johnnycake Mountain rises in West Virginia.", "Johnnycake Mountain", "West Virginia"
    )
    assert load_lines(fresh_settings, [*common, rare]).ok
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        body = ask("acme", text="Which county holds Johnnycake Mountain in West Virginia?", top_k=10)
    assert "acme:place/johnnycake-mountain" in entities(body)
