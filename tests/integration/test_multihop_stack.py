"""Multi-hop evidence through the documents path on the local stack: pages are entities, a page
indexed later links the pages already there that name it, and ``auto`` follows a link to a page the
question never names, showing the path, in the caller's context only."""

from __future__ import annotations

import json
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.ports import RESIDUAL_ARM, Residual, SearchFilters
from retrieval_dev.cli.events import api_event, why_event
from retrieval_dev.cli.lambda_runtime import invoke

from dev.ingest_resources import IngestResources
from tests.integration.test_documents_stack import docs, put, remove, retrieve

__all__ = ["docs"]  # the fixture, shared with the documents tests

LIBRARY = b"""# Kelmscott Library

The Kelmscott Library is a reading room in Hammersmith for the printers' guild. Its architect was
Edith Marlowe, who drew the vaulted hall in 1894.
"""
ARCHITECT = b"""# Edith Marlowe

Edith Marlowe (1851-1920) was an English designer. She came into the world at Whitby, a fishing town
on the Yorkshire coast, and trained in Glasgow.
"""
DISTRACTORS = {
    "contexts/acme/reed.md": b"# Thomas Reed\n\nThomas Reed was an architect of public libraries in York.\n",
    "contexts/acme/hall.md": b"# Guild Hall\n\nThe Guild Hall in Hammersmith holds the printers' library "
    b"of pattern books.\n",
    "contexts/acme/bridge.md": b"# Hammersmith Bridge\n\nHammersmith Bridge crosses the Thames; its "
    b"architect was born in London.\n",
}
QUESTION = "Where was the architect of the Kelmscott Library born?"
LIBRARY_CHUNK, ARCHITECT_CHUNK = "acme:doc/library.md#0000", "acme:doc/marlowe.md#0000"


def load(settings: Settings, resources: IngestResources) -> None:
    """The library first: it names its architect before her page exists (the back-link case)."""
    put(resources, settings, "contexts/acme/library.md", LIBRARY)
    for key, body in DISTRACTORS.items():
        put(resources, settings, key, body)
    put(resources, settings, "contexts/acme/marlowe.md", ARCHITECT)
    put(resources, settings, "contexts/globex/marlowe.md", ARCHITECT.replace(b"Whitby", b"Leeds"))


def ask(**fields: Any) -> list[dict[str, Any]]:
    return retrieve({"text": QUESTION, "top_k": 5, "diversify": False, **fields})


def test_auto_finds_the_page_the_question_never_names_with_its_path(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    hits = ask(mode="auto")
    assert [h["id"] for h in hits[:2]] == [LIBRARY_CHUNK, ARCHITECT_CHUNK]
    bridge = hits[1]
    assert "multihop" in bridge["found_by"] and "multihop" in bridge["signals"]
    assert bridge["path"] == [
        {
            "from_id": LIBRARY_CHUNK,
            "entity_id": "acme:entity/edith-marlowe",
            "entity": "Edith Marlowe",
            "link": "about",
        }
    ]
    # The library's page names her, though it was indexed before her page: the back-link.
    library = hits[0]
    assert {"entity_id": "acme:entity/edith-marlowe", "name": "Edith Marlowe", "type": "page"} in [
        {k: m[k] for k in ("entity_id", "name", "type")} for m in library["mentions"]
    ]
    assert all(h["id"].startswith("acme:") for h in hits)  # globex's Marlowe page is never reached


def test_text_search_ranks_it_last_and_hops_lift_it_in_hybrid_too(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    for mode in ("hybrid", "auto"):
        alone = [h["id"] for h in ask(mode=mode, hops=1)]
        assert alone[-1] == ARCHITECT_CHUNK  # it shares no word with the question but "born"
    response = retrieve_body({"mode": "hybrid", "text": QUESTION, "top_k": 5, "hops": 2})
    assert ARCHITECT_CHUNK in [h["id"] for h in response["hits"][:3]]
    assert response["applied"]["multihop"].startswith("hops=2 ")
    assert "round_trips=1" in response["applied"]["multihop"]


def test_graph_path_joins_two_pages_through_the_chunk_that_names_the_other(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    query = {"from": "acme:entity/kelmscott-library", "to": "acme:entity/edith-marlowe"}
    response = invoke("graph_path", api_event("GET", "/v1/graph/path", "acme", query=query))
    assert response["statusCode"] == 200, response["body"]
    (path, *_) = json.loads(response["body"])["paths"]
    assert path["entity_ids"] == [query["from"], query["to"]]
    assert [e["proposition_id"] for e in path["edges"]] == [LIBRARY_CHUNK]
    # globex has a Marlowe page but no library: no path, as for an entity that does not exist.
    response = invoke("graph_path", api_event("GET", "/v1/graph/path", "globex", query=query))
    assert json.loads(response["body"])["paths"] == []


def test_why_explain_on_a_chunk_lists_the_page_it_is_about_and_the_pages_it_names(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    response = invoke("why_explain", why_event("acme", LIBRARY_CHUNK))
    assert response["statusCode"] == 200, response["body"]
    mentions = json.loads(response["body"])["item"]["mentions"]
    roles = {(m["entity_id"], m["type"], m.get("role")) for m in mentions}
    assert ("acme:entity/kelmscott-library", "page", "about") in roles
    assert ("acme:entity/edith-marlowe", "page", None) in roles


def test_a_removed_page_is_no_longer_a_bridge(docs: tuple[Settings, IngestResources]) -> None:
    settings, resources = docs
    load(settings, resources)
    remove(resources, settings, "contexts/acme/marlowe.md")
    hits = ask(mode="auto")
    assert ARCHITECT_CHUNK not in [h["id"] for h in hits]
    # Her name is no page of acme's any more: no path goes through her.
    assert all(hop["entity"] != "Edith Marlowe" for h in hits for hop in h.get("path") or [])


def looked_up(settings: Settings, **overrides: Any) -> bootstrap.Container:
    """The container (with ``overrides``) with auto's names looked up beside hybrid's arms
    (``question_names: lookup``): the path whose focus round trip also carries the walk's first fetch,
    made ahead."""
    return bootstrap.Container(settings.model_copy(update={"question_names": "lookup"}), overrides=overrides)


def test_with_names_held_the_walk_costs_one_round_trip_more_than_hybrid(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    store = bootstrap.container().store
    retrieve_body({"mode": "auto", "text": "Who was Edith Marlowe?"})  # the names are read and held
    costs = {}
    for name, body in {"hybrid": {"mode": "hybrid"}, "auto": {"mode": "auto"}}.items():
        before = store.backend_calls
        response = retrieve_body(body | {"text": QUESTION, "top_k": 5})
        costs[name] = store.backend_calls - before
    # Auto: hybrid's arms and the focus arms of the page the question names in one _msearch, then the
    # walk's fetch (no ranking to predict it from before that round trip).
    assert costs == {"hybrid": 1, "auto": 2}
    assert "named=1 " in applied_walk(response) and applied_walk(response).endswith("round_trips=1")
    assert ARCHITECT_CHUNK in [h["id"] for h in response["hits"]]


def test_with_names_looked_up_the_walk_costs_at_most_two_round_trips_more_than_hybrid(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    with bootstrap.use(looked_up(settings)):
        store = bootstrap.container().store
        costs, applied = {}, {}
        for name, body in {
            "hybrid": {"mode": "hybrid"},
            "auto": {"mode": "auto"},
            "auto_three_hops": {"mode": "auto", "hops": 3},
        }.items():
            before = store.backend_calls
            response = retrieve_body(body | {"text": QUESTION, "top_k": 5})
            costs[name] = store.backend_calls - before
            applied[name] = response["applied"]["multihop"] if name != "hybrid" else None
        # Auto: hybrid's _msearch with the dictionary lookup, and the focus arms of the page the question
        # names with the walk's first fetch (its passages and its pages' counts), made ahead as hybrid's
        # ranking predicts it: right here, so the walk makes no round trip of its own; three hops walk once
        # more at most.
        assert costs["hybrid"] == 1
        assert costs["auto"] == costs["hybrid"] + 1
        assert "named=1 " in applied["auto"] and applied["auto"].endswith("ahead=used round_trips=0")
        walks = int(applied["auto_three_hops"].rsplit("round_trips=", 1)[1])
        assert costs["auto_three_hops"] == costs["auto"] + walks and walks <= 1


def test_the_walk_s_first_fetch_made_ahead_gives_the_same_hits_as_the_walk_s_own(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    body = {"mode": "auto", "text": QUESTION, "top_k": 5}
    with bootstrap.use(looked_up(settings)):
        store = bootstrap.container().store
        before = store.backend_calls
        ahead = retrieve_body(body)
        ahead_cost = store.backend_calls - before
        config = bootstrap.container().retrieval_config
    walking = config.model_copy(update={"multihop": config.multihop.model_copy(update={"ahead": False})})
    with bootstrap.use(looked_up(settings, retrieval_config=walking)):
        store = bootstrap.container().store
        before = store.backend_calls
        own = retrieve_body(body)
        own_cost = store.backend_calls - before
    assert ahead["hits"] == own["hits"] and ARCHITECT_CHUNK in [h["id"] for h in own["hits"]]
    assert ahead_cost == own_cost - 1
    assert applied_walk(ahead).endswith("ahead=used round_trips=0")
    assert applied_walk(own).endswith("iterations=6 round_trips=1")


def applied_walk(response: dict[str, Any]) -> str:
    return str(response["applied"]["multihop"])


def test_a_chain_s_second_end_is_asked_in_the_walk_s_fetch_among_the_passages_naming_what_it_names(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    container = bootstrap.container()
    store = container.store
    rest = "Where was the architect of the born?"
    vector = container.embedder.embed([rest])[0]
    marlowe = "acme:entity/edith-marlowe"
    residual = Residual(rest, tuple(vector), (marlowe, "globex:entity/edith-marlowe"))
    filters = SearchFilters(size=10, entities=("acme:entity/kelmscott-library",))
    before = store.backend_calls
    found = store.neighbourhood("acme", QUESTION, vector, filters, 10, residual)
    assert store.backend_calls - before == 1  # in the walk's own _msearch
    ends = {c.id: c.score for c in found.arms[RESIDUAL_ARM]}
    # Only the caller's passages naming her (her page, and the library's that names her): never the
    # distractors (they do not name her) nor globex's page of her (another context).
    assert set(ends) == {LIBRARY_CHUNK, ARCHITECT_CHUNK}
    assert all(0 < score <= 1 for score in ends.values())
    assert RESIDUAL_ARM not in store.neighbourhood("acme", QUESTION, vector, filters, 10).arms
    # auto asks it for a question asking through the page it names (names looked up): ahead, in its
    # focus round trip, the walk asking the same (the second end included), so the walk costs no round
    # trip of its own.
    with bootstrap.use(looked_up(settings)):
        applied = retrieve_body({"mode": "auto", "text": QUESTION, "top_k": 5})["applied"]["multihop"]
    assert "second_ends=" in applied and applied.endswith("ahead=used round_trips=0")


def retrieve_body(body: dict[str, Any]) -> dict[str, Any]:
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    assert response["statusCode"] == 200, response["body"]
    return dict(json.loads(response["body"]))


PRESS = b"""# Kelmscott Press

The Kelmscott Press is a hand press of 1891 that sets type in the Golden face.
"""
GUIDE = b"""# Printing guide

Print your guild pages by hand, or set them on the Kelmscott Press, or send them to a print shop.
"""


def test_the_page_a_question_names_leads_its_entity_arm_over_a_chunk_that_mentions_it(
    docs: tuple[Settings, IngestResources],
) -> None:
    # The press's page shares none of the question's other words; the guide names the press beside
    # all of them. The question names the press, and its own page answers to that name: it leads the
    # entity arm (a must-match arm would otherwise hold only the guide), the guide next.
    settings, resources = docs
    put(resources, settings, "contexts/acme/press.md", PRESS)
    put(resources, settings, "contexts/acme/guide.md", GUIDE)
    hits = retrieve(
        {"text": "Can I print my guild pages on the Kelmscott Press?", "mode": "auto", "top_k": 5}
    )
    entity_rank = {h["id"]: h["signals"]["entity"]["rank"] for h in hits if "entity" in h["signals"]}
    assert entity_rank == {"acme:doc/press.md#0000": 1, "acme:doc/guide.md#0000": 2}


BODLEY = b"""# Bodley Library

The Bodley Library is a reading room in Oxford for the bookbinders' guild. Its architect was
Hugh Penrose, who drew the long gallery in 1901.
"""
PENROSE = b"""# Hugh Penrose

Hugh Penrose (1860-1931) was a Welsh engineer. His family lived in Cardiff, where he studied.
"""
RIVALS = {
    f"contexts/acme/rival-{n}.md": f"# {name}\n\nWhich library has the architect born first? The {name}, "
    f"like the Kelmscott Library and the Bodley Library, has an architect born first among the guild's "
    f"builders of libraries.\n".encode()
    for n, name in enumerate(["Mercer Library", "Vintner Library", "Draper Library", "Cutler Library"])
}
"""Pages closer to the question's words than either architect's, naming both libraries."""
COMPARISON = "Which library has the architect born first, the Kelmscott Library or the Bodley Library?"


def test_a_bridge_comparison_keeps_both_libraries_and_both_architects_in_the_top_five(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    load(settings, resources)
    for key, body in {
        **RIVALS,
        "contexts/acme/bodley.md": BODLEY,
        "contexts/acme/penrose.md": PENROSE,
    }.items():
        put(resources, settings, key, body)
    pages = ["library.md", "bodley.md", "marlowe.md", "penrose.md"]
    text_only = [h["id"] for h in ask(mode="auto", text=COMPARISON, hops=1)]
    assert not all(f"acme:doc/{page}#0000" in text_only for page in pages)  # the rivals outrank some
    hits = ask(mode="auto", text=COMPARISON)
    assert {f"acme:doc/{page}#0000" for page in pages} <= {h["id"] for h in hits}
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
