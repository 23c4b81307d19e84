"""One typed plan per mode (``retrieval.plans``): what each mode searches with is decided once, at the
door, and nothing that ranks reads the request."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import pytest
from retrieval_core.models.vocabulary import Kind
from retrieval_core.ports import TimeWindow
from retrieval_core.retrieval.modes import MODES
from retrieval_core.retrieval.plans import (
    AutoPlan,
    EntityPlan,
    GraphWalkPlan,
    HybridPlan,
    LexicalPlan,
    Plan,
    TemporalPlan,
    VectorPlan,
    expands_graph,
    reads_the_clock,
)
from retrieval_core.retrieval.requests import RetrieveRequest

RETRIEVAL = Path(__file__).resolve().parents[2] / "shared" / "retrieval_core" / "retrieval"
RANKING_MODULES = [
    "arms.py",
    "pipeline.py",
    "pager.py",
    "auto.py",
    "feedback.py",
    *(f"stages/{p.name}" for p in sorted((RETRIEVAL / "stages").glob("*.py"))),
]
WINDOW = {"from": "2026-01-01T00:00:00Z", "to": "2026-02-01T00:00:00Z"}


def plan(**fields: object) -> Plan:
    request = RetrieveRequest.model_validate(fields)
    return MODES.specs[request.mode].plan(request)


def test_each_mode_gets_its_own_plan_with_what_it_searches_with() -> None:
    assert plan(mode="lexical", text="q") == LexicalPlan(text="q")
    assert plan(mode="vector", vector=[1, 2]) == VectorPlan(text="", vector=(1.0, 2.0))
    assert plan(mode="hybrid", text="q", expand_graph=True, weights={"document": 2}) == HybridPlan(
        text="q", weights={Kind.DOCUMENT: 2.0}, hops=1, expand_graph=True
    )
    assert plan(mode="entity", entity_id="acme:e") == EntityPlan(text="", entity_id="acme:e")
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    assert plan(mode="temporal", window=WINDOW) == TemporalPlan(text="", window=TimeWindow(start, end))
    assert plan(mode="graph_walk", entity_id="acme:e") == GraphWalkPlan(text="", entity_id="acme:e")
    auto = plan(mode="auto", text="q", window=WINDOW)
    assert isinstance(auto, AutoPlan) and auto.window == TimeWindow(start, end) and auto.infer


def test_expanding_the_graph_and_reading_the_clock_belong_to_their_modes() -> None:
    assert expands_graph(plan(mode="hybrid", text="q", expand_graph=True))
    assert not expands_graph(plan(mode="hybrid", text="q"))
    assert reads_the_clock(plan(mode="auto", text="q"))
    assert not reads_the_clock(plan(mode="auto", text="q", now="2026-01-01T00:00:00Z"))
    assert not reads_the_clock(plan(mode="auto", text="q", infer=False))
    assert not reads_the_clock(plan(mode="hybrid", text="q"))


@pytest.mark.parametrize("module", RANKING_MODULES)
def test_nothing_that_ranks_reads_the_request(module: str) -> None:
    tree = ast.parse((RETRIEVAL / module).read_text(encoding="utf-8"))
    reads = [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "request"
    ]
    assert reads == [], f"{module} reads the request at lines {reads}: read the plan (retrieval/plans.py)"
