"""graph_path over in-memory ports: shortest paths, limits, cycles, the node cap and context isolation."""

from __future__ import annotations

from itertools import pairwise

import pytest
from pydantic import ValidationError
from retrieval_core.context import CallerContext
from retrieval_core.graph.models import GraphPathRequest, GraphPathResponse
from retrieval_core.graph.path import graph_path
from retrieval_core.models.vocabulary import Status

from tests.unit.fakes_graph import FakeGraph, FakeItems

ACME = CallerContext("acme")


class World:
    """A graph and the proposition texts behind its edges, in one or more contexts."""

    def __init__(self) -> None:
        self.graph = FakeGraph()
        self.items = FakeItems()

    def link(self, a: str, b: str, proposition: str, ctx: str = "acme", **edge: object) -> None:
        self.graph.link(ctx, a, b, proposition, **edge)
        self.items.add(ctx, proposition, text=f"{a} relates to {b}", mentions=[a, b])

    def chain(self, *entities: str, ctx: str = "acme", tag: str = "p") -> None:
        for i, (a, b) in enumerate(pairwise(entities)):
            self.link(a, b, f"{ctx}:{tag}{i}", ctx=ctx)

    def path(
        self, caller: CallerContext = ACME, node_cap: int = 5_000, **request: object
    ) -> GraphPathResponse:
        return graph_path(
            self.graph, self.items, caller, GraphPathRequest.model_validate(request), node_cap=node_cap
        )


def test_finds_the_four_hop_path_with_texts_and_oriented_edges() -> None:
    world = World()
    world.chain("acme:a", "acme:b", "acme:c", "acme:d", "acme:e")
    world.chain("acme:a", "acme:x1", "acme:x2", "acme:x3", "acme:x4", "acme:e", tag="long")

    result = world.path(**{"from": "acme:a", "to": "acme:e", "max_depth": 5})

    assert result.found and not result.truncated
    [path] = result.paths
    assert path.entity_ids == ["acme:a", "acme:b", "acme:c", "acme:d", "acme:e"]
    assert [(e.from_id, e.to_id, e.proposition_id) for e in path.edges] == [
        ("acme:a", "acme:b", "acme:p0"),
        ("acme:b", "acme:c", "acme:p1"),
        ("acme:c", "acme:d", "acme:p2"),
        ("acme:d", "acme:e", "acme:p3"),
    ]
    assert path.edges[0].text in {"acme:a relates to acme:b", "acme:b relates to acme:a"}
    assert all(e.status is Status.ACTIVE for e in path.edges)
    assert result.explored.hops == 4
    dumped = path.edges[0].model_dump()
    assert dumped["from"] == "acme:a" and dumped["to"] == "acme:b"


def test_path_longer_than_max_depth_is_not_found() -> None:
    world = World()
    world.chain("acme:a", "acme:b", "acme:c", "acme:d", "acme:e")

    result = world.path(**{"from": "acme:a", "to": "acme:e", "max_depth": 3})

    assert not result.found and not result.truncated and result.paths == []
    assert result.explored.hops == 3


def test_max_paths_returns_distinct_shortest_paths_only() -> None:
    world = World()
    world.chain("acme:a", "acme:b", "acme:z", tag="via-b")
    world.chain("acme:a", "acme:c", "acme:z", tag="via-c")
    world.chain("acme:a", "acme:d", "acme:e", "acme:z", tag="longer")

    result = world.path(**{"from": "acme:a", "to": "acme:z", "max_paths": 5})

    sequences = [p.entity_ids for p in result.paths]
    assert sorted(sequences) == [["acme:a", "acme:b", "acme:z"], ["acme:a", "acme:c", "acme:z"]]
    assert {len(p.edges) for p in result.paths} == {2}


def test_max_paths_limits_the_number_of_paths() -> None:
    world = World()
    for middle in "bcdef":
        world.chain("acme:a", f"acme:{middle}", "acme:z", tag=f"via-{middle}")

    result = world.path(**{"from": "acme:a", "to": "acme:z", "max_paths": 3})

    assert len(result.paths) == 3
    assert len({tuple(p.entity_ids) for p in result.paths}) == 3


def test_parallel_propositions_give_one_path_carried_by_the_most_confident() -> None:
    world = World()
    world.link("acme:a", "acme:b", "acme:weak", confidence=0.2)
    world.link("acme:a", "acme:b", "acme:strong", confidence=0.9)

    result = world.path(**{"from": "acme:a", "to": "acme:b", "max_paths": 5})

    [path] = result.paths
    assert [e.proposition_id for e in path.edges] == ["acme:strong"]
    assert path.edges[0].confidence == 0.9


@pytest.mark.parametrize(
    ("given", "applied"),
    [({"max_depth": 0, "max_paths": 0}, (1, 1)), ({"max_depth": 99, "max_paths": 42}, (5, 5)), ({}, (3, 1))],
)
def test_limits_are_clamped_and_reported(given: dict[str, int], applied: tuple[int, int]) -> None:
    world = World()
    world.chain("acme:a", "acme:b")

    result = world.path(**{"from": "acme:a", "to": "acme:b", **given})

    assert (result.applied.max_depth, result.applied.max_paths) == applied


def test_clamped_depth_still_bounds_the_search() -> None:
    world = World()
    world.chain(*(f"acme:n{i}" for i in range(7)))

    five = world.path(**{"from": "acme:n0", "to": "acme:n5", "max_depth": 50})
    six = world.path(**{"from": "acme:n0", "to": "acme:n6", "max_depth": 50})

    assert five.found and len(five.paths[0].edges) == 5
    assert not six.found and six.applied.max_depth == 5


@pytest.mark.parametrize(
    "request_body",
    [
        {"from": "acme:a"},
        {"from": "acme:a", "to": ""},
        {"from": "acme:a", "to": "acme:b", "statuses": []},
        {"from": "acme:a", "to": "acme:b", "statuses": ["GONE"]},
        {"from": "acme:a", "to": "acme:b", "max_depth": True},
        {"from": "acme:a", "to": "acme:b", "max_paths": "2"},
        {"from": "acme:a", "to": "acme:b", "hops": 2},
    ],
)
def test_malformed_requests_are_rejected(request_body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        GraphPathRequest.model_validate(request_body)


def test_cycles_do_not_loop() -> None:
    world = World()
    world.chain("acme:a", "acme:b", "acme:c", "acme:a")
    world.chain("acme:y", "acme:z", tag="q")

    result = world.path(**{"from": "acme:a", "to": "acme:z", "max_depth": 5})

    assert not result.found and not result.truncated
    assert result.explored.nodes_visited == 5  # a, b, c on one side; z, y on the other
    assert result.explored.backend_calls == len(world.graph.calls) <= 5


def test_node_cap_truncates_instead_of_answering_wrongly() -> None:
    world = World()
    for i in range(30):
        world.chain("acme:hub", f"acme:leaf{i}", f"acme:far{i}", tag=f"s{i}")
    world.chain("acme:far29", "acme:goal", tag="g")

    capped = world.path(node_cap=10, **{"from": "acme:hub", "to": "acme:goal", "max_depth": 5})
    uncapped = world.path(**{"from": "acme:hub", "to": "acme:goal", "max_depth": 5})

    assert not capped.found and capped.truncated and capped.paths == []
    assert uncapped.found and not uncapped.truncated
    assert uncapped.paths[0].entity_ids == ["acme:hub", "acme:leaf29", "acme:far29", "acme:goal"]


def test_status_filter_applies_to_edges() -> None:
    world = World()
    world.link("acme:a", "acme:b", "acme:old", status=Status.SUPERSEDED)

    active_only = world.path(**{"from": "acme:a", "to": "acme:b"})
    with_superseded = world.path(**{"from": "acme:a", "to": "acme:b", "statuses": ["ACTIVE", "SUPERSEDED"]})

    assert not active_only.found
    assert with_superseded.found and with_superseded.paths[0].edges[0].status is Status.SUPERSEDED


def _other_context_world() -> World:
    world = World()
    world.chain("acme:a", "acme:b", "acme:c")
    world.chain("globex:a", "globex:b", "globex:z", ctx="globex")
    return world


@pytest.mark.parametrize("end", ["to", "from"])
def test_foreign_entity_is_indistinguishable_from_missing(end: str) -> None:
    world = _other_context_world()
    other = "from" if end == "to" else "to"

    foreign = world.path(**{other: "acme:a", end: "globex:z", "max_depth": 5})
    missing = world.path(**{other: "acme:a", end: "acme:nope", "max_depth": 5})

    assert not foreign.found
    assert foreign.model_dump() == missing.model_dump()


def test_same_entity_is_a_zero_length_path_only_when_it_exists_in_context() -> None:
    world = _other_context_world()

    known = world.path(**{"from": "acme:b", "to": "acme:b"})
    foreign = world.path(**{"from": "globex:b", "to": "globex:b"})
    missing = world.path(**{"from": "acme:nope", "to": "acme:nope"})

    assert known.found and known.paths[0].entity_ids == ["acme:b"] and known.paths[0].edges == []
    assert not foreign.found and foreign.model_dump() == missing.model_dump()


def test_corrupted_rows_pointing_into_another_context_are_never_followed() -> None:
    world = _other_context_world()
    world.graph.add_raw_edge("acme", "acme:c", "globex:z", "acme:planted")
    world.graph.add_raw_edge("acme", "acme:c", "acme:z2", "globex:planted")
    world.items.add("acme", "acme:planted")

    to_foreign = world.path(**{"from": "acme:a", "to": "globex:z", "max_depth": 5})
    via_foreign_proposition = world.path(**{"from": "acme:a", "to": "acme:z2", "max_depth": 5})

    assert not to_foreign.found and not via_foreign_proposition.found
    assert "globex" not in to_foreign.model_dump_json() + via_foreign_proposition.model_dump_json()
    assert to_foreign.explored.nodes_visited == via_foreign_proposition.explored.nodes_visited == 4


def test_corrupted_rows_on_a_foreign_entitys_partition_are_never_followed() -> None:
    world = _other_context_world()
    world.graph.add_raw_edge("acme", "globex:z", "acme:c", "acme:planted")
    world.items.add("acme", "acme:planted")

    foreign = world.path(**{"from": "globex:z", "to": "acme:a", "max_depth": 5})
    missing = world.path(**{"from": "acme:nope", "to": "acme:a", "max_depth": 5})
    same = world.path(**{"from": "globex:z", "to": "globex:z"})

    assert not foreign.found and foreign.model_dump() == missing.model_dump()
    assert not same.found


def test_edge_whose_proposition_no_longer_exists_is_skipped_for_a_real_longer_path() -> None:
    world = World()
    world.graph.link("acme", "acme:a", "acme:z", "acme:deleted")
    world.chain("acme:a", "acme:m", "acme:z")

    result = world.path(**{"from": "acme:a", "to": "acme:z"})

    assert result.found
    assert result.paths[0].entity_ids == ["acme:a", "acme:m", "acme:z"]
    assert "acme:deleted" not in result.model_dump_json()


def test_giving_up_on_stale_edges_says_truncated_instead_of_not_found() -> None:
    world = World()
    for i in range(4):
        world.graph.link("acme", "acme:a", f"acme:x{i}", f"acme:gone-a{i}")
        world.graph.link("acme", f"acme:x{i}", "acme:z", f"acme:gone-z{i}")
    world.chain("acme:a", "acme:m1", "acme:m2", "acme:z")

    result = world.path(**{"from": "acme:a", "to": "acme:z"})

    assert not result.found and result.truncated
    assert len(world.items.calls) == 3


def test_port_calls_grow_with_levels_not_frontier_width() -> None:
    world = World()
    for i in range(40):
        world.chain("acme:root", f"acme:l1-{i}", f"acme:l2-{i}", tag=f"w{i}")
    world.chain("acme:l2-39", "acme:goal", tag="g")
    for i in range(40):
        world.chain("acme:goal", f"acme:g1-{i}", tag=f"gw{i}")

    result = world.path(**{"from": "acme:root", "to": "acme:goal", "max_depth": 5})

    assert result.found and result.explored.hops == 3
    assert len(world.graph.calls) == 3
    assert max(len(call) for call in world.graph.calls) == 40
    assert len(world.items.calls) == 1
    assert result.explored.backend_calls == 3 + 1


def test_an_edge_its_propositions_document_does_not_vouch_for_is_no_path() -> None:
    # Issue 67, item 3: rows written for version 2 of a proposition before its document (still version 1)
    # must not carry a path beside version 1's text.
    world = World()
    world.link("acme:a", "acme:b", "acme:p")
    world.graph.link("acme", "acme:b", "acme:new", "acme:p")  # version 2's edge; the document is version 1

    assert world.path(**{"from": "acme:b", "to": "acme:new"}).paths == []
    assert [p.entity_ids for p in world.path(**{"from": "acme:a", "to": "acme:b"}).paths] == [
        ["acme:a", "acme:b"]
    ]
