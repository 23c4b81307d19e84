"""why_explain over in-memory ports: derivation DAGs, supersession, contradictions, isolation, round trips."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from retrieval_core.context import CallerContext
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import NotFoundError
from retrieval_core.lineage import ItemNotFoundError, WhyExplainRequest, WhyExplainResponse, why_explain
from retrieval_core.models.vocabulary import Kind

from tests.unit.fakes_graph import FakeItems, FakeLineage

ACME = CallerContext("acme")


class World:
    def __init__(self) -> None:
        self.lineage = FakeLineage()
        self.items = FakeItems()

    def add(self, item_id: str, ctx: str = "acme", kind: Kind = Kind.PROPOSITION, **links: object) -> None:
        self.lineage.add(ctx, item_id, kind=kind, **links)
        said = {name: links[name] for name in ("source_ids", "supersedes", "grounding") if name in links}
        self.items.add(ctx, item_id, kind=kind, **said)  # type: ignore[arg-type]

    def explain(self, item_id: str, caller: CallerContext = ACME, **request: object) -> WhyExplainResponse:
        return why_explain(self.lineage, self.items, caller, WhyExplainRequest(item_id=item_id, **request))


def _chain(world: World, length: int, width: int = 1) -> None:
    """``acme:l0`` derived from ``width`` items of level 1, each from ``width`` of level 2, ..."""
    for level in range(length + 1):
        sources = [f"acme:l{level + 1}-{i}" for i in range(width)] if level < length else []
        for i in range(width if level else 1):
            world.add(f"acme:l{level}-{i}" if level else "acme:l0", source_ids=sources)


def test_three_deep_chain_is_returned_whole() -> None:
    world = World()
    world.add("acme:raw", kind=Kind.DOCUMENT)
    world.add("acme:fact", source_ids=["acme:raw"])
    world.add("acme:summary", source_ids=["acme:fact"])
    world.add("acme:claim", source_ids=["acme:summary"])

    result = world.explain("acme:claim")

    assert result.item.id == "acme:claim" and result.item.text == "text of acme:claim"
    assert [(n.id, n.level) for n in result.derived_from.nodes] == [
        ("acme:summary", 1),
        ("acme:fact", 2),
        ("acme:raw", 3),
    ]
    assert result.derived_from.nodes[2].kind is Kind.DOCUMENT
    assert [(e.from_id, e.to_id) for e in result.derived_from.edges] == [
        ("acme:claim", "acme:summary"),
        ("acme:summary", "acme:fact"),
        ("acme:fact", "acme:raw"),
    ]
    assert result.derived_from.edges[0].model_dump() == {"from": "acme:claim", "to": "acme:summary"}
    assert result.explored.levels == 3 and not result.explored.truncated


def test_depth_limits_the_climb_and_reports_truncation() -> None:
    world = World()
    _chain(world, length=4)

    result = world.explain("acme:l0", depth=2)

    assert [n.level for n in result.derived_from.nodes] == [1, 2]
    assert result.explored.truncated and result.explored.levels == 2


@pytest.mark.parametrize(("given", "applied"), [(0, 1), (-3, 1), (9, 5), (None, 3)])
def test_depth_is_clamped_and_reported(given: int | None, applied: int) -> None:
    world = World()
    _chain(world, length=6)

    result = world.explain("acme:l0", **({} if given is None else {"depth": given}))

    assert result.applied.depth == applied
    assert max(n.level for n in result.derived_from.nodes) == applied


@pytest.mark.parametrize("body", [{"depth": 2}, {"item_id": "acme:x", "depth": "2"}, {"item_id": ""}])
def test_malformed_requests_are_rejected(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        WhyExplainRequest.model_validate(body)


def test_diamond_shows_the_shared_ancestor_once_with_every_link() -> None:
    world = World()
    world.add("acme:a")
    world.add("acme:b", source_ids=["acme:a"])
    world.add("acme:c", source_ids=["acme:a"])
    world.add("acme:d", source_ids=["acme:b", "acme:c"])

    result = world.explain("acme:d")

    assert [(n.id, n.level) for n in result.derived_from.nodes] == [
        ("acme:b", 1),
        ("acme:c", 1),
        ("acme:a", 2),
    ]
    assert sorted((e.from_id, e.to_id) for e in result.derived_from.edges) == [
        ("acme:b", "acme:a"),
        ("acme:c", "acme:a"),
        ("acme:d", "acme:b"),
        ("acme:d", "acme:c"),
    ]


def test_link_back_to_a_known_ancestor_at_the_depth_limit_is_kept() -> None:
    world = World()
    world.add("acme:a")
    world.add("acme:b", source_ids=["acme:a"])
    world.add("acme:d", source_ids=["acme:b", "acme:a"])

    result = world.explain("acme:d", depth=1)

    assert sorted((e.from_id, e.to_id) for e in result.derived_from.edges) == [
        ("acme:b", "acme:a"),
        ("acme:d", "acme:a"),
        ("acme:d", "acme:b"),
    ]
    assert not result.explored.truncated


def test_superseded_item_names_its_successor_and_the_successor_names_it() -> None:
    world = World()
    world.add("acme:old")
    world.add("acme:new", supersedes=["acme:old"])

    old = world.explain("acme:old")
    new = world.explain("acme:new")

    assert [v.id for v in old.superseded_by] == ["acme:new"]
    assert old.superseded_by[0].text == "text of acme:new"
    assert [v.id for v in new.supersedes] == ["acme:old"] and new.superseded_by == []


def test_contradictions_are_merged_from_both_directions() -> None:
    world = World()
    world.add("acme:x")
    world.add("acme:y", contradicts=["acme:x"])
    world.add("acme:z")
    world.add("acme:x2", contradicts=["acme:z"])
    world.lineage.card_rows[("acme", "acme:x")].contradicts.append("acme:z")

    result = world.explain("acme:x")

    assert {v.id for v in result.contradicts} == {"acme:y", "acme:z"}


def test_grounding_and_derived_count() -> None:
    world = World()
    chunk = {"chunk_id": "acme:doc-1#3", "uri": "s3://bucket/doc-1.pdf", "start": 10, "end": 42}
    world.add("acme:fact", grounding=[chunk])
    for i in range(3):
        world.add(f"acme:child{i}", source_ids=["acme:fact"])

    result = world.explain("acme:fact")

    assert [g.model_dump() for g in result.grounding] == [
        {**chunk, "page": None, "section": None, "anchor": None, "version": None}
    ]
    assert result.derived_count == 3


def test_foreign_and_missing_items_raise_the_same_error() -> None:
    world = World()
    world.add("globex:secret", ctx="globex")
    world.add("acme:known")

    with pytest.raises(NotFoundError) as foreign:
        world.explain("globex:secret")
    with pytest.raises(NotFoundError) as missing:
        world.explain("acme:unknown")
    with pytest.raises(NotFoundError) as unprefixed:
        world.explain("secret")

    assert isinstance(foreign.value, ItemNotFoundError)
    assert foreign.value.to_body() == missing.value.to_body() == unprefixed.value.to_body()
    assert status_of(foreign.value) == 404


def test_foreign_id_planted_in_the_callers_partition_is_still_not_found() -> None:
    world = World()
    world.add("globex:secret", ctx="acme")

    with pytest.raises(ItemNotFoundError):
        world.explain("globex:secret")
    assert world.lineage.calls == [] and world.items.calls == []


def test_item_whose_text_is_gone_is_not_found() -> None:
    world = World()
    world.add("acme:ghost")
    del world.items.hits[("acme", "acme:ghost")]

    with pytest.raises(ItemNotFoundError):
        world.explain("acme:ghost")


def test_cross_context_links_are_omitted_without_a_trace() -> None:
    world = World()
    world.add("globex:src", ctx="globex")
    world.add("globex:newer", ctx="globex")
    world.add("acme:src")
    world.add("acme:item", source_ids=["acme:src"])
    card = world.lineage.card_rows[("acme", "acme:item")]
    card.source_ids.append("globex:src")
    card.supersedes.append("globex:newer")
    card.contradicts.append("globex:src")
    card.grounding.append({"chunk_id": "globex:chunk"})
    for field in ("derived_to", "superseded_by", "contradicted_by"):
        world.lineage.add_raw_link("acme", "acme:item", field, "globex:newer")
    clean = World()
    clean.add("acme:src")
    clean.add("acme:item", source_ids=["acme:src"])

    tainted = world.explain("acme:item")

    assert "globex" not in tainted.model_dump_json()
    assert tainted.model_dump() == clean.explain("acme:item").model_dump()
    assert all(not id_.startswith("globex") for call in world.lineage.calls for id_ in call[1])
    assert all(not id_.startswith("globex") for call in world.items.calls for id_ in call)


def test_ancestor_without_text_is_dropped_with_everything_only_it_leads_to() -> None:
    world = World()
    world.add("acme:root-source")
    world.add("acme:middle", source_ids=["acme:root-source"])
    world.add("acme:other")
    world.add("acme:item", source_ids=["acme:middle", "acme:other"])
    del world.items.hits[("acme", "acme:middle")]

    result = world.explain("acme:item")

    assert [n.id for n in result.derived_from.nodes] == ["acme:other"]
    assert [(e.from_id, e.to_id) for e in result.derived_from.edges] == [("acme:item", "acme:other")]


def test_round_trips_grow_with_depth_not_with_the_number_of_ancestors() -> None:
    narrow, wide = World(), World()
    _chain(narrow, length=3, width=1)
    _chain(wide, length=3, width=25)

    narrow_result = narrow.explain("acme:l0", depth=3)
    wide_result = wide.explain("acme:l0", depth=3)

    assert len(narrow_result.derived_from.nodes) == 3
    assert len(wide_result.derived_from.nodes) == 75
    expected = 1 + 3 + 1  # the item's partition, one card batch per level, one text read
    assert narrow_result.explored.backend_calls == wide_result.explored.backend_calls == expected
    assert len(wide.lineage.calls) == 4 and len(wide.items.calls) == 1


def test_a_card_of_another_version_shows_only_what_the_document_vouches_for() -> None:
    # Issue 67, item 3: a load killed after an item's card (version 2) and before its document (still
    # version 1) showed version 2's sources, supersessions and grounding beside version 1's text.
    world = World()
    for item_id in ("acme:src-1", "acme:src-2", "acme:older"):
        world.add(item_id)
    old_span = {"chunk_id": "acme:doc-1#1", "uri": "s3://bucket/one.md"}
    new_span = {"chunk_id": "acme:doc-2#1", "uri": "s3://bucket/two.md"}
    world.add("acme:note", source_ids=["acme:src-1"], grounding=[old_span])
    world.lineage.add(
        "acme", "acme:note", source_ids=["acme:src-2"], supersedes=["acme:older"], grounding=[new_span]
    )

    result = world.explain("acme:note")

    assert result.item.text == "text of acme:note"
    assert result.derived_from.nodes == [] and result.derived_from.edges == []
    assert result.supersedes == [] and result.grounding == []
    assert world.explain("acme:older").superseded_by == []  # the reverse link of a version not written


def test_a_card_of_the_documents_version_shows_its_spans_without_a_uri() -> None:
    world = World()
    span = {"chunk_id": "acme:doc-1#1", "start": 0, "end": 4}
    world.add("acme:note", grounding=[span])
    assert [g.chunk_id for g in world.explain("acme:note").grounding] == ["acme:doc-1#1"]
