"""bench's multihop section on the development sets (bench/multihop.py, bench/report.py): measured without
them when absent, and their table and cost bound rendered from what was measured."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from retrieval_core.config import Settings

from bench import multihop, report


def test_without_the_sets_the_section_says_so_and_measures_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    monkeypatch.setattr(multihop, "say", said.append)
    assert multihop.development_sets(cast(Settings, None), tmp_path) == {}
    assert said == [
        f"multihop: no development sets under {tmp_path / 'multihop'} (<set>/beir/): measured without them"
    ]


def test_the_development_sets_table_shows_each_mode_and_auto_against_hybrid() -> None:
    asked = {
        "hybrid": {
            "p50_ms": 40.0,
            "p95_ms": 60.0,
            "round_trips": 2.0,
            "recall_at_5": 0.7,
            "all_found_at_5": 0.4,
        },
        "auto": {
            "p50_ms": 70.0,
            "p95_ms": 90.0,
            "round_trips": 3.5,
            "recall_at_5": 0.9,
            "all_found_at_5": 0.8,
        },
    }
    sets = {"hotpotqa": {"asked": asked, "auto_p50_over_hybrid": 1.75, "auto_rounds_over_hybrid": 1.5}}
    lines = report._multihop_development_sets(sets)
    assert "| hotpotqa | auto | 70.0 | 90.0 | 3.5 | 0.900 | 0.800 |" in lines
    assert "hotpotqa: auto's p50 1.75x hybrid's, +1.5 round trips." in lines
    assert report._multihop_development_sets({}) == []


class _Store:
    """The six calls a development-set run times, each answering its own name."""

    def hybrid(self) -> str:
        return "hybrid"

    def hybrid_and_focused(self) -> str:
        return "hybrid_and_focused"

    def hybrid_with_names(self) -> str:
        return "hybrid_with_names"

    def focused(self) -> str:
        return "focused"

    def focused_and_neighbourhood(self) -> str:
        return "focused_and_neighbourhood"

    def neighbourhood(self) -> str:
        return "neighbourhood"


def test_each_round_trip_is_timed_by_kind_and_the_store_is_unwrapped_after() -> None:
    store = _Store()
    with multihop.timed_round_trips(store) as spent:
        answers = [store.hybrid(), store.hybrid_and_focused(), store.hybrid_with_names(), store.focused()]
    assert answers == ["hybrid", "hybrid_and_focused", "hybrid_with_names", "focused"]
    counts = {name: len(ms) for name, ms in spent.items()}
    assert counts == {"hybrid": 1, "hybrid_and_focused": 1, "hybrid_with_names": 1, "focused": 1}
    assert all(ms >= 0 for calls in spent.values() for ms in calls)
    assert vars(store) == {}  # the class's own methods again
    store.neighbourhood()
    assert "neighbourhood" not in spent


def test_the_report_says_where_each_sets_time_went() -> None:
    asked = {
        label: {"p50_ms": 1.0, "p95_ms": 1.0, "round_trips": 1.0, "recall_at_5": 1.0, "all_found_at_5": 1.0}
        for label in ("hybrid", "auto")
    }
    spent = {"hybrid's _msearch": 37.5, "auto's focus arms": 8.25}
    found = {"asked": asked, "auto_p50_over_hybrid": 1.0, "auto_rounds_over_hybrid": 0.0}
    lines = report._multihop_development_sets(
        {"musique": {**found, "round_trip_ms": spent, "load_average": 2.04}}
    )
    assert (
        "musique, ms per request by round trip (load average up to 2.0): hybrid's _msearch 37.5, "
        "auto's focus arms 8.2." in lines
    )


def test_cpu_per_request_is_the_nodes_and_this_processs_cpu_over_the_questions_asked_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from retrieval_dev.evaluation import runner

    from bench import cpu_meter

    asked: list[tuple[str, str, int]] = []
    node_seconds = iter([10.0, 10.5])
    monkeypatch.setattr(runner, "retrieve_hits", lambda mode, text, top_k: asked.append((mode, text, top_k)))
    monkeypatch.setattr(
        cpu_meter, "stack_seconds", lambda stack: {"opensearch": next(node_seconds), "moto": 0.0}
    )
    spent = multihop.cpu_per_request("auto", ["one?", "two?"], stack={})
    assert asked == [("auto", "one?", multihop.DEV_TOP_K), ("auto", "two?", multihop.DEV_TOP_K)]
    assert spent["opensearch"] == pytest.approx(250.0)
    assert spent["client"] >= 0


def test_the_report_gives_each_modes_cpu_and_their_ratio() -> None:
    asked = {
        label: {"p50_ms": 1.0, "p95_ms": 1.0, "round_trips": 1.0, "recall_at_5": 1.0, "all_found_at_5": 1.0}
        for label in ("hybrid", "auto")
    }
    cpu = {"hybrid": {"opensearch": 28.0, "client": 11.5}, "auto": {"opensearch": 60.0, "client": 25.0}}
    found = {"asked": asked, "auto_p50_over_hybrid": 1.0, "auto_rounds_over_hybrid": 0.0}
    lines = report._multihop_development_sets(
        {"hotpotqa": {**found, "cpu_ms": cpu, "auto_cpu_over_hybrid": 85.0 / 39.5}}
    )
    assert (
        "hotpotqa, CPU ms per request, each mode asked alone: hybrid 39.5 (OpenSearch 28.0, this process "
        "11.5), auto 85.0 (OpenSearch 60.0, this process 25.0); auto's CPU 2.15x hybrid's." in lines
    )
