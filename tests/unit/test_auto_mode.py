"""auto mode through the ranking against the in-memory store: what it infers, what it reports, what it costs,
and that it never reaches past the caller's context, statuses or filter."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from fakes_store import FixedEmbedder, InMemoryStore, capabilities_of
from pydantic import ValidationError
from retrieval_core.context import CallerContext
from retrieval_core.documents.name_dictionary import MAX_AGE_SECONDS
from retrieval_core.models.item import Item
from retrieval_core.ports import Capabilities, NamedEntity
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.feedback import FeedbackOptions
from retrieval_core.retrieval.pager import Page
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.understanding.alias_index import HeldNames
from unpaged import Unpaged

ACME = CallerContext("acme")
NOW = "2026-06-01T09:00:00Z"


def item(item_id: str, text: str, kind: str = "proposition", **extra: Any) -> Item:
    return Item.model_validate(
        {
            "id": item_id,
            "context_id": item_id.split(":")[0],
            "kind": kind,
            "text": text,
            "created_at": "2026-03-01T00:00:00Z",
            "embedding": [1.0, 0.0],
        }
        | extra
    )


def mention(entity_id: str, name: str, kind: str) -> dict[str, str]:
    return {"entity_id": entity_id, "name": name, "type": kind}


DMITRI = mention("acme:person/dmitri-volkov", "Dmitri Volkov", "Person")
LEDGER = mention("acme:service/ledger-core", "ledger-core", "Service")
SVEN = mention("globex:person/sven-larsen", "Sven Larsen", "Person")
ITEMS = [
    item(
        "acme:rec-1",
        "Deploy ledger-core v7 by Dmitri Volkov",
        "record",
        mentions=[DMITRI, LEDGER],
        created_at="2025-07-08T10:00:00Z",
    ),
    item(
        "acme:rec-2",
        "Deploy ledger-core v9 by Dmitri Volkov",
        "record",
        mentions=[DMITRI, LEDGER],
        created_at="2026-04-20T10:00:00Z",
    ),
    item(
        "acme:p-1",
        "Dmitri Volkov is the technical lead of the ledger migration",
        mentions=[DMITRI, LEDGER],
        metadata={"team": "ledger"},
    ),
    item("acme:p-old", "Dmitri Volkov deployed ledger-core by hand", status="SUPERSEDED", mentions=[DMITRI]),
    item("acme:p-2", "Deploys of every service are canaried", metadata={"team": "platform"}),
    item("globex:rec-1", "Deploy route-optimizer by Sven Larsen", "record", mentions=[SVEN]),
    item("globex:p-1", "Sven Larsen manages the Routing team", mentions=[SVEN]),
]


def route(**fields: Any) -> tuple[Page, InMemoryStore]:
    store = InMemoryStore(ITEMS)
    embedder = FixedEmbedder({}, dimension=2)
    unpaged = Unpaged(capabilities_of(store, None, embedder), ACME, config=RetrievalConfig())
    return unpaged.first_page(RetrieveRequest.model_validate({"mode": "auto", "now": NOW} | fields)), store


def inferred(result: Page) -> list[tuple[str, str, str, bool]]:
    return [(i.span, i.became, i.value, i.used) for i in result.applied.inferred or []]


def test_it_reads_entities_time_and_kinds_and_says_so() -> None:
    result, store = route(text="What did Dmitri Volkov deploy before April?")
    assert inferred(result) == [
        ("Dmitri Volkov", "entity", "acme:person/dmitri-volkov", True),
        ("deploy", "kind_weight", "record=1.25", True),
        ("before April", "window", "0001-01-01T00:00:00Z .. 2026-03-31T23:59:59.999999Z", True),
    ]
    assert set(result.arms) >= {"lexical", "vector", "entity", "window"}
    # The deploy before April first: in the entity arm, the window arm, and a record.
    assert result.hits[0].id == "acme:rec-1"
    assert store.calls == ["hybrid_with_names", "focused"]


def test_nothing_inferred_costs_one_round_trip_and_ranks_as_hybrid_arms_do() -> None:
    result, store = route(text="canaried services")
    assert inferred(result) == []
    assert result.arms == ("lexical", "vector")
    assert store.calls == ["hybrid_with_names"]


def test_another_contexts_entity_links_nothing_and_only_own_items_return() -> None:
    result, _ = route(text="What did Sven Larsen deploy?")
    assert [i for i in inferred(result) if i[1] == "entity"] == []
    assert result.hits and all(hit.id.startswith("acme:") for hit in result.hits)


def test_inference_never_widens_statuses() -> None:
    result, _ = route(text="What did Dmitri Volkov deploy by hand?", top_k=20)
    assert "acme:p-old" not in {hit.id for hit in result.hits}
    assert result.applied.statuses == ["ACTIVE"]


def test_inference_never_widens_the_filter() -> None:
    where = {"equals": {"key": "metadata.team", "value": "platform"}}
    result, _ = route(text="Which service did Dmitri Volkov deploy?", filter=where, top_k=20)
    assert [hit.id for hit in result.hits] == ["acme:p-2"]
    assert result.applied.filter is not None


def test_explicit_fields_win_and_the_overridden_inference_is_reported_unused() -> None:
    result, _ = route(
        text="What did Dmitri Volkov deploy before April?",
        entity_id="acme:service/ledger-core",
        window={"from": "2026-04-01T00:00:00Z", "to": "2026-04-30T23:59:59Z"},
        weights={"record": 1.0},
    )
    assert [(span, used) for span, _, _, used in inferred(result)] == [
        ("Dmitri Volkov", False),
        ("deploy", False),
        ("before April", False),
    ]
    # The explicit April window prefers the April deploy.
    assert result.hits[0].id == "acme:rec-2"


def test_infer_false_is_hybrid_with_the_names_unread() -> None:
    result, store = route(text="What did Dmitri Volkov deploy before April?", infer=False)
    assert inferred(result) == []
    assert result.arms == ("lexical", "vector")
    assert store.calls == ["hybrid_with_names"]


def test_a_kind_hint_weighs_and_keeps_the_page_in_rank_order() -> None:
    result, _ = route(text="Which deploy records mention Dmitri Volkov?", top_k=5)
    kinds = [hit.kind for hit in result.hits]
    assert kinds[:2] == ["record", "record"]  # not interleaved with the proposition
    interleaved, _ = route(text="Which deploy records mention Dmitri Volkov?", top_k=5, diversify=True)
    assert [hit.kind for hit in interleaved.hits][:2] == ["record", "proposition"]


def test_expand_graph_is_refused_for_auto() -> None:
    with pytest.raises(ValidationError, match="expand_graph"):
        RetrieveRequest.model_validate({"mode": "auto", "text": "x", "expand_graph": True})


def test_auto_needs_text() -> None:
    with pytest.raises(ValidationError, match="text is required for mode 'auto'"):
        RetrieveRequest.model_validate({"mode": "auto", "entity_id": "acme:person/dmitri-volkov"})


INES = mention("acme:person/ines-moreau", "Ines Moreau", "Person")
NORTHWIND = mention("acme:customer/northwind", "Northwind", "Customer")
MANAGING = [
    item("acme:rec-hr", "HR record | Ines Moreau | manages customers", "record", mentions=[INES]),
    item("acme:p-account", "Ines Moreau is the account manager for Northwind", mentions=[INES, NORTHWIND]),
    item("acme:p-other", "Northwind customers manage their own cards", mentions=[NORTHWIND]),
]


def route_over(
    items: list[Item], config: RetrievalConfig | None = None, **fields: Any
) -> tuple[Page, InMemoryStore]:
    store = InMemoryStore(items)
    embedder = FixedEmbedder({}, dimension=2)
    unpaged = Unpaged(capabilities_of(store, None, embedder), ACME, config=config or RetrievalConfig())
    return unpaged.first_page(RetrieveRequest.model_validate({"mode": "auto", "now": NOW} | fields)), store


def test_a_typed_question_about_an_entity_ranks_its_items_naming_that_type_first() -> None:
    question = "Which customers does Ines Moreau manage?"
    hybrid, _ = route_over(MANAGING, text=question, infer=False)
    # The words alone prefer her HR record and another customer's item: both say "customers".
    assert hybrid.hits[0].id != "acme:p-account"

    result, _ = route_over(MANAGING, text=question)
    assert ("Which customers", "answer_type", "Customer", True) in inferred(result)
    assert "answer" in result.arms
    assert result.hits[0].id == "acme:p-account"


def test_an_asked_type_without_a_linked_entity_adds_no_arm() -> None:
    result, _ = route_over(MANAGING, text="Which customers manage their own cards?")
    assert [i for i in inferred(result) if i[1] == "answer_type"] == []
    assert "answer" not in result.arms


def test_auto_runs_the_deployment_feedback_on_its_text_arms() -> None:
    config = RetrievalConfig(feedback=FeedbackOptions(weight=0.3))  # expansion terms too, to see them
    result, store = route_over(MANAGING, config, text="Which customers does Ines Moreau manage?")
    # The BM25 first pass, then the moved arms with the names, then the focus arms: hybrid's two + one.
    assert store.calls == ["lexical_feedback", "hybrid_with_names", "focused"]
    assert result.applied.expansion_terms


LIBRARY_PAGE = mention("acme:entity/kelmscott-library", "Kelmscott Library", "page") | {"role": "about"}
ARCHITECT_PAGE = mention("acme:entity/ada-smith", "Ada Smith", "page")
PAGES = [
    item(
        "acme:doc/library.md#0000",
        "The Kelmscott Library is a reading room. Its architect was Ada Smith.",
        "document",
        mentions=[LIBRARY_PAGE, ARCHITECT_PAGE],
    ),
    item(
        "acme:doc/smith.md#0000",
        "Ada Smith came into the world at Whitby.",
        "document",
        mentions=[ARCHITECT_PAGE | {"role": "about"}],
    ),
    item("acme:doc/hall.md#0000", "The architect of the guild hall was born in York.", "document"),
]


def walked(ahead: bool) -> tuple[Page, InMemoryStore]:
    store = InMemoryStore(PAGES)
    config = RetrievalConfig()
    config = config.model_copy(update={"multihop": config.multihop.model_copy(update={"ahead": ahead})})
    unpaged = Unpaged(capabilities_of(store, None, FixedEmbedder({}, dimension=2)), ACME, config=config)
    request = {"mode": "auto", "text": "Where was the architect of the Kelmscott Library born?"}
    return unpaged.first_page(RetrieveRequest.model_validate(request)), store


def test_the_walk_s_first_fetch_rides_in_the_focus_round_trip_when_hybrid_s_ranking_predicts_it() -> None:
    ahead, store = walked(ahead=True)
    own, walking = walked(ahead=False)
    assert store.calls == ["hybrid_with_names", "focused_and_neighbourhood"]
    assert walking.calls == ["hybrid_with_names", "focused", "neighbourhood"]
    assert ahead.hits == own.hits and "acme:doc/smith.md#0000" in [h.id for h in own.hits]
    assert (ahead.applied.multihop or "").endswith("ahead=used round_trips=0")


class ContextDictionary:
    """The in-memory store's dictionary reads (``entity_names_within``, ``entity_names_since``), and
    which contexts were read whole."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self.read: list[str] = []

    def entity_names_within(self, context_id: str, most: int) -> list[NamedEntity] | None:
        self.read.append(context_id)
        return self._store.entity_names_within(context_id, most)

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        return self._store.entity_names_since(context_id, since)


def held_route(**fields: Any) -> tuple[Page, InMemoryStore, ContextDictionary]:
    store = InMemoryStore(ITEMS)
    dictionary = ContextDictionary(store)
    capabilities = Capabilities(
        search=store, embedder=FixedEmbedder({}, dimension=2), names=HeldNames(dictionary)
    )
    unpaged = Unpaged(capabilities, ACME, config=RetrievalConfig())
    request = RetrieveRequest.model_validate({"mode": "auto", "now": NOW} | fields)
    return unpaged.first_page(request), store, dictionary


@pytest.mark.parametrize(
    "text", ["What did Dmitri Volkov deploy before April?", "canaried services", "Who leads ledger-core?"]
)
def test_names_held_in_the_function_read_the_question_first_and_ask_everything_in_one_round_trip(
    text: str,
) -> None:
    looked_up, _ = route(text=text)
    held, store, dictionary = held_route(text=text)
    assert inferred(held) == inferred(looked_up)
    assert [h.id for h in held.hits] == [h.id for h in looked_up.hits]
    assert store.calls == ["hybrid_and_focused"]
    assert dictionary.read == ["acme"]


def test_held_names_never_read_another_contexts_dictionary_nor_link_its_names() -> None:
    result, _, dictionary = held_route(text="What did Sven Larsen deploy?")
    assert [i for i in inferred(result) if i[1] == "entity"] == []
    assert {h.id.split(":")[0] for h in result.hits} == {"acme"}
    assert dictionary.read == ["acme"]


def test_held_names_report_no_entity_the_callers_items_no_longer_mention() -> None:
    store = InMemoryStore(ITEMS)
    dictionary = ContextDictionary(store)
    names = HeldNames(dictionary)
    capabilities = Capabilities(search=store, embedder=FixedEmbedder({}, dimension=2), names=names)
    question = {"mode": "auto", "now": NOW, "text": "What did Dmitri Volkov deploy?"}

    def entities() -> list[str]:
        page = Unpaged(capabilities, ACME, config=RetrievalConfig()).first_page(
            RetrieveRequest.model_validate(question)
        )
        return [i[2] for i in inferred(page) if i[1] == "entity"]

    assert entities() == ["acme:person/dmitri-volkov"]  # the copy is held from here on
    for item_id in [i for i, held in store.items.items() if DMITRI["entity_id"] in held.entity_ids]:
        del store.items[item_id]
    assert entities() == []
    assert dictionary.read == ["acme"]  # the copy still holds the name; no item mentions it


def test_a_context_with_more_names_than_are_held_is_looked_up_and_not_read_again_for_a_while() -> None:
    store = InMemoryStore(ITEMS)
    dictionary = ContextDictionary(store)
    clock = [0.0]
    names = HeldNames(dictionary, most=1, monotonic=lambda: clock[0])  # acme's items give 2 names
    capabilities = Capabilities(search=store, embedder=FixedEmbedder({}, dimension=2), names=names)
    question = {"mode": "auto", "now": NOW, "text": "What did Dmitri Volkov deploy before April?"}

    def ask() -> Page:
        request = RetrieveRequest.model_validate(question)
        return Unpaged(capabilities, ACME, config=RetrievalConfig()).first_page(request)

    looked_up, _ = route(text=question["text"])
    assert inferred(ask()) == inferred(looked_up)
    assert store.calls[-2:] == ["hybrid_with_names", "focused"]
    clock[0] = 60.0
    ask()
    assert dictionary.read == ["acme"]  # the verdict holds until the whole read is due again
    clock[0] = 60.0 + MAX_AGE_SECONDS
    ask()
    assert dictionary.read == ["acme", "acme"]
