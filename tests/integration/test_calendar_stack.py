"""Issue 40: the calendar's ends (years 1 and 9999, in UTC) are dates the index stores and filters on:
an item dated at either end loads (it once passed validation and was then refused by the index, its year
written "1"), a window and a filter at the ends find it, and a time cue past them is not read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from corpus_stack import retrieve
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from stack_state import load_lines
from test_loader import proposition

from dev.tables import scratch_space

EDGES = {"acme:p-first": "0001-01-01T00:00:00Z", "acme:p-last": "9999-12-31T23:59:59Z"}


@pytest.fixture(scope="module")
def edge_settings(stack_settings: Settings, opensearch: Any) -> Iterator[Settings]:
    with scratch_space(stack_settings, "cal") as settings:
        lines = [proposition(i, ["acme:e/a"], created_at=moment) for i, moment in EDGES.items()]
        report = load_lines(settings, lines)
        assert report.ok, report.summary()
        with bootstrap.use(bootstrap.Container(settings)):
            yield settings


def ids(body: dict[str, Any]) -> set[str]:
    return {hit["id"] for hit in body["hits"]}


def test_items_dated_at_the_calendars_ends_load_and_filter(edge_settings: Settings) -> None:
    first = {"lte": {"key": "created_at", "value": "0001-01-01T00:00:00Z"}}
    last = {"gte": {"key": "created_at", "value": "9999-12-31T00:00:00Z"}}
    for leaf, expected in ((first, {"acme:p-first"}), (last, {"acme:p-last"})):
        status, body = retrieve("acme", {"mode": "lexical", "text": "links", "filter": leaf})
        assert (status, ids(body)) == (200, expected)


def test_a_window_at_the_first_day_finds_its_item(edge_settings: Settings) -> None:
    window = {"from": "0001-01-01T00:00:00Z", "to": "0001-01-01T23:59:59Z"}
    status, body = retrieve("acme", {"mode": "temporal", "window": window})
    assert (status, ids(body)) == (200, {"acme:p-first"})


@pytest.mark.parametrize("cue", ["before 0001-01-01", "after 9999-12-31", "in March 99999"])
def test_a_cue_past_the_calendar_is_not_read_and_answers(edge_settings: Settings, cue: str) -> None:
    status, body = retrieve("acme", {"mode": "auto", "text": f"links {cue}", "now": "9999-12-31T12:00:00Z"})
    assert status == 200, body
    assert not [i for i in body.get("inferred") or [] if i["became"] == "window"]
