"""``retrieval search``: its filters in short become the API's filter language with the key's declared
type, and an answer prints as a ranked list with citations and the question's words marked."""

from __future__ import annotations

import argparse

import pytest
from retrieval_dev.cli import parser
from retrieval_dev.cli.search import FilterSyntaxError, filter_leaf, render, request_body, snippet

TYPES = {"metadata.year": "number", "metadata.draft": "boolean", "confidence": "number"}


@pytest.mark.parametrize(
    ("spec", "leaf"),
    [
        ("team=payments", {"equals": {"key": "metadata.team", "value": "payments"}}),
        ("year=2024", {"equals": {"key": "metadata.year", "value": 2024}}),
        ("year>=2020", {"gte": {"key": "metadata.year", "value": 2020}}),
        ("n<2.5", {"lt": {"key": "metadata.n", "value": 2.5}}),  # undeclared, but a range: a number
        ("code=007", {"equals": {"key": "metadata.code", "value": "007"}}),  # undeclared: as written
        ("draft=true", {"equals": {"key": "metadata.draft", "value": True}}),
        ("kind!=document", {"not_equals": {"key": "kind", "value": "document"}}),
        ("created_at>=2026-01-01T00:00:00Z", {"gte": {"key": "created_at", "value": "2026-01-01T00:00:00Z"}}),
        ("metadata.team = a b", {"equals": {"key": "metadata.team", "value": "a b"}}),
    ],
)
def test_short_filters_become_the_api_language_with_declared_types(
    spec: str, leaf: dict[str, object]
) -> None:
    assert filter_leaf(spec, TYPES) == leaf


def test_a_malformed_filter_is_refused_and_several_are_anded() -> None:
    for spec in ("team", "=x", "year>="):
        with pytest.raises(FilterSyntaxError, match="key=value"):
            filter_leaf(spec, TYPES)
    args = parser().parse_args(
        [
            "search",
            "who leads payments",
            "--context",
            "acme",
            "--top-k",
            "3",
            "--filter",
            "a=1",
            "--filter",
            "year>1",
        ]
    )
    assert isinstance(args, argparse.Namespace)
    assert request_body(args, TYPES) == {
        "mode": "hybrid",
        "text": "who leads payments",
        "top_k": 3,
        "filter": {
            "all_of": [
                {"equals": {"key": "metadata.a", "value": "1"}},
                {"gt": {"key": "metadata.year", "value": 1}},
            ]
        },
    }


def test_an_answer_prints_rank_score_title_place_and_a_marked_snippet() -> None:
    answer = {
        "hits": [
            {
                "id": "acme:doc/manuals/a.pdf#0001",
                "kind": "document",
                "score": 0.91234,
                "text": "Wing flutter appears above Mach 0.8. Engineers add stiffeners.",
                "location": {
                    "uri": "s3://b/contexts/acme/manuals/a.pdf",
                    "page": 2,
                    "section": "Tests > Wing",
                },
            },
            {
                "id": "acme:p-1",
                "kind": "proposition",
                "score": 0.95,
                "text": "Nothing to see.",
                "metadata": {},
            },
        ],
        "applied": {"diversify": True},
    }
    lines = render("when does the wing flutter?", answer).splitlines()
    assert lines[0] == " 1. 0.912  a.pdf  (acme:doc/manuals/a.pdf#0001)"
    assert lines[1] == "    s3://b/contexts/acme/manuals/a.pdf, page 2, section Tests > Wing"
    assert lines[2] == "    **Wing** **flutter** appears above Mach 0.8. Engineers add stiffeners."
    assert lines[3] == " 2. 0.950  acme:p-1  [proposition]"
    assert "scores do not descend" in lines[-1]  # the diversified page says why 0.950 follows 0.912
    assert render("x", {"hits": []}) == "no hits for 'x'"


def test_a_long_text_is_cut_around_its_first_match() -> None:
    text = "filler " * 100 + "the beacon blinks " + "tail " * 100
    piece = snippet(text, ["beacon"])
    assert piece.startswith("...") and piece.endswith("...") and "**beacon**" in piece
    assert len(piece) < 300
