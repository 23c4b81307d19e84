"""walk: breadth-first edges around seed entities, for graph_walk retrieval and hybrid expansion."""

from __future__ import annotations

from retrieval_core.backend_calls import CallMeter
from retrieval_core.context import CallerContext
from retrieval_core.graph.walk import walk
from retrieval_core.models.vocabulary import Status

from tests.unit.fakes_graph import FakeGraph

ACME = CallerContext("acme")
ACTIVE = (Status.ACTIVE,)


def _star_with_tail() -> FakeGraph:
    graph = FakeGraph()
    graph.link("acme", "acme:s", "acme:a", "acme:p-sa")
    graph.link("acme", "acme:s", "acme:b", "acme:p-sb")
    graph.link("acme", "acme:a", "acme:b", "acme:p-ab")
    graph.link("acme", "acme:b", "acme:c", "acme:p-bc")
    graph.link("acme", "acme:c", "acme:d", "acme:p-cd")
    return graph


def test_edges_come_once_per_proposition_in_breadth_first_order_with_their_hop() -> None:
    steps = walk(_star_with_tail(), ACME, ["acme:s"], depth=2, statuses=ACTIVE)

    assert [(step.edge.proposition_id, step.hop) for step in steps] == [
        ("acme:p-sa", 1),
        ("acme:p-sb", 1),
        ("acme:p-ab", 2),
        ("acme:p-bc", 2),
    ]
    edge, hop = steps[0]
    assert (edge.from_id, edge.to_id, hop) == ("acme:s", "acme:a", 1)


def test_one_port_call_per_level_and_cycles_end_the_walk() -> None:
    graph = _star_with_tail()

    steps = walk(graph, ACME, ["acme:s"], depth=5, statuses=ACTIVE)

    assert {step.edge.proposition_id for step in steps} == {
        "acme:p-sa",
        "acme:p-sb",
        "acme:p-ab",
        "acme:p-bc",
        "acme:p-cd",
    }
    assert graph.calls == [["acme:s"], ["acme:a", "acme:b"], ["acme:c"], ["acme:d"]]


def test_several_seeds_expand_together() -> None:
    graph = _star_with_tail()

    steps = walk(graph, ACME, ["acme:d", "acme:s", "acme:d"], depth=1, statuses=ACTIVE)

    assert graph.calls == [["acme:d", "acme:s"]]
    assert [step.edge.proposition_id for step in steps] == ["acme:p-cd", "acme:p-sa", "acme:p-sb"]


def test_node_cap_stops_further_levels() -> None:
    graph = FakeGraph()
    for i in range(20):
        graph.link("acme", "acme:hub", f"acme:n{i}", f"acme:p{i}")
        graph.link("acme", f"acme:n{i}", f"acme:m{i}", f"acme:q{i}")

    capped = walk(graph, ACME, ["acme:hub"], depth=3, statuses=ACTIVE, node_cap=5)
    full = walk(graph, ACME, ["acme:hub"], depth=3, statuses=ACTIVE)

    assert {step.hop for step in capped} == {1} and len(capped) == 20
    assert len(full) == 40


def test_foreign_rows_and_foreign_seeds_yield_nothing() -> None:
    graph = _star_with_tail()
    graph.link("globex", "globex:s", "globex:t", "globex:p")
    graph.add_raw_edge("acme", "acme:d", "globex:t", "acme:planted")

    from_foreign_seed = walk(graph, ACME, ["globex:s"], depth=3, statuses=ACTIVE)
    around_d = walk(graph, ACME, ["acme:d"], depth=1, statuses=ACTIVE)

    assert from_foreign_seed == []
    assert [step.edge.proposition_id for step in around_d] == ["acme:p-cd"]


def test_meter_counts_the_walk_into_a_request_total() -> None:
    graph = _star_with_tail()
    meter = CallMeter(graph)

    walk(graph, ACME, ["acme:s"], depth=2, statuses=ACTIVE, meter=meter)

    assert meter.total == 2
