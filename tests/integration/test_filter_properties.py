"""Random filters over a generated corpus, through the real retrieve handler on the real stack: every hit
of lexical, vector and hybrid satisfies the filter by an independent evaluator (``tests/filter_oracle``);
lexical returns exactly the matching items that contain the query word, and vector and hybrid (with
``top_k`` above the corpus size) return exactly the matching items. A fixed seed and 30 examples keep it
to seconds; the filters are drawn to be applicable (see ``test_filtered_retrieve`` for the refusals)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import filter_corpus as fc
import pytest
from corpus_stack import retrieve
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.models.item import Item
from retrieval_core.models.metadata import FieldType
from retrieval_core.models.vocabulary import Kind, Status
from stack_state import load_lines

from dev.tables import scratch_space
from tests.filter_oracle import matches

ALL_STATUSES = [s.value for s in Status]


@pytest.fixture(scope="module")
def filter_stack(stack_settings: Settings, opensearch: Any) -> Iterator[list[Item]]:
    """The generated corpus in fresh tables and alias, declared metadata types, handlers pointed at it."""
    items = fc.build()
    with scratch_space(stack_settings, "f") as scratch:
        types = {name: FieldType(value) for name, value in fc.METADATA_TYPES.items()}
        declared = scratch.model_copy(update={"metadata_fields": types})
        report = load_lines(declared, fc.jsonl(items))
        assert report.ok, report.summary()
        with bootstrap.use(bootstrap.Container(declared)):
            yield items


def _leaf(
    operators: list[str], key: str, values: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda op, v: {op: {"key": key, "value": v}}, st.sampled_from(operators), values)


def _membership(key: str, values: tuple[Any, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda op, vs: {op: {"key": key, "value": vs}},
        st.sampled_from(["in", "not_in"]),
        st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True),
    )


MATCH = ["equals", "not_equals", "list_contains"]
RANGES = ["gt", "gte", "lt", "lte"]
DATES = st.builds(fc.moment, st.integers(0, 90), st.sampled_from(fc.ZONES))
TEAMS = (*fc.TEAMS, fc.FOREIGN_TEAM)
LEAVES = st.one_of(
    _leaf(MATCH, "metadata.team", st.sampled_from(TEAMS)),
    _membership("metadata.team", TEAMS),
    _leaf(["starts_with"], "metadata.team", st.sampled_from(["pay", "r", "core", "fother"])),
    _leaf(["string_contains"], "metadata.team", st.sampled_from(["ay", "o", "-", "payments"])),
    _leaf(MATCH, "metadata.tags", st.sampled_from((*fc.TAGS, fc.FOREIGN_TAG))),
    _membership("metadata.tags", fc.TAGS),
    _leaf([*MATCH, *RANGES], "metadata.amount", st.sampled_from(fc.AMOUNTS)),
    _membership("metadata.amount", fc.AMOUNTS),
    _leaf([*RANGES, "equals"], "metadata.due", DATES),
    _leaf(["equals", "not_equals"], "metadata.flag", st.booleans()),
    _leaf(["equals", "starts_with"], "metadata.note", st.sampled_from([*fc.NOTES, "gam", "fother"])),
    st.builds(
        lambda key: {"exists": {"key": key}},
        st.sampled_from(
            [*(f"metadata.{k}" for k in (*fc.METADATA_TYPES, "note")), "confidence", "valid_from", "valid_to"]
        ),
    ),
    _leaf(["equals", "not_equals"], "kind", st.sampled_from([k.value for k in Kind])),
    _membership("status", tuple(ALL_STATUSES)),
    _leaf(RANGES, "confidence", st.sampled_from(fc.CONFIDENCES)),
    _leaf(RANGES, "created_at", DATES),
    _leaf(RANGES, "valid_to", DATES),
    _leaf(["list_contains"], "source_ids", st.sampled_from([f"{fc.CTX}:doc-{j}" for j in range(fc.DOCS)])),
    _leaf(["equals"], "mentions.entity_id", st.sampled_from([f"{fc.CTX}:person/p{j}" for j in range(3)])),
    _membership("mentions.type", ("Person", "Team", "Service")),
)


def _levels(node: dict[str, Any]) -> int:
    ((_, operand),) = node.items()
    return 1 + max(map(_levels, operand)) if isinstance(operand, list) and "key" not in operand else 1


FILTERS = st.recursive(
    LEAVES,
    lambda children: st.builds(
        lambda op, xs: {op: xs},
        st.sampled_from(["all_of", "any_of", "none_of"]),
        st.lists(children, min_size=1, max_size=3),
    ),
    max_leaves=8,
).filter(lambda node: _levels(node) <= 5)


@settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(where=FILTERS)
# Every operator once at a boundary value (a range that is off by one is caught here for sure).
@example(where={"gt": {"key": "metadata.amount", "value": 4}})
@example(where={"lte": {"key": "metadata.amount", "value": 2.5}})
@example(where={"gte": {"key": "confidence", "value": 0.5}})
@example(where={"lt": {"key": "metadata.due", "value": fc.moment(30, fc.ZONES[1])}})
@example(where={"gt": {"key": "created_at", "value": fc.moment(20)}})
@example(where={"none_of": [{"in": {"key": "metadata.tags", "value": ["red", "blue"]}}]})
@example(where={"not_in": {"key": "metadata.team", "value": ["risk"]}})
@example(
    where={"all_of": [{"exists": {"key": "valid_to"}}, {"equals": {"key": "metadata.flag", "value": True}}]}
)
@example(
    where={
        "any_of": [
            {"starts_with": {"key": "metadata.note", "value": "gam"}},
            {"string_contains": {"key": "metadata.team", "value": "-"}},
        ]
    }
)
def test_every_hit_satisfies_the_filter_and_lexical_finds_all(filter_stack: list[Item], where: dict) -> None:
    mine = [i for i in filter_stack if i.context_id == fc.CTX]
    matching = {i.id for i in mine if matches(i, where, fc.METADATA_TYPES)}
    with_word = {i.id for i in mine if fc.QUERY_WORD in i.text.split()}
    vector = fc.unit_vector(random.Random(json.dumps(where, sort_keys=True)))
    # One pass: expansion (on in the default preset) adds terms from the top hits, so a lexical answer
    # may also hold filter-matching items without the word; every hit satisfying the filter still holds.
    common = {
        "top_k": 100,
        "statuses": ALL_STATUSES,
        "diversify": False,
        "filter": where,
        "feedback": {"enabled": False},
    }
    requests = {
        "lexical": {"mode": "lexical", "text": fc.QUERY_WORD},
        "vector": {"mode": "vector", "vector": vector},
        "hybrid": {"mode": "hybrid", "text": fc.QUERY_WORD, "vector": vector},
    }
    for mode, request in requests.items():
        status, body = retrieve(fc.CTX, request | common)
        assert status == 200, (mode, body)
        found = [h["id"] for h in body["hits"]]
        assert len(found) == len(set(found)), mode
        assert set(found) <= matching, (mode, sorted(set(found) - matching))
        expected = matching & with_word if mode == "lexical" else matching
        assert set(found) == expected, (mode, sorted(expected ^ set(found)))
        assert body["applied"]["filter"]["arms"] == dict.fromkeys(body["arms"], "in_query")


FOREIGN_ONLY = {
    "any_of": [
        {"equals": {"key": "metadata.team", "value": fc.FOREIGN_TEAM}},
        {"list_contains": {"key": "metadata.tags", "value": fc.FOREIGN_TAG}},
        {"gte": {"key": "metadata.amount", "value": 1000}},
        {"starts_with": {"key": "metadata.note", "value": "fother"}},
    ]
}
WHOLE_RANGE = {"from": fc.moment(0), "to": fc.moment(400)}


@pytest.mark.parametrize(
    "request_body",
    [
        {"mode": "lexical", "text": fc.QUERY_WORD},
        {"mode": "vector", "text": fc.QUERY_WORD},
        {"mode": "hybrid", "text": fc.QUERY_WORD, "expand_graph": True},
        {"mode": "temporal", "window": WHOLE_RANGE},
        {"mode": "entity", "entity_id": "{ctx}:person/p0"},
        {"mode": "graph_walk", "entity_id": "{ctx}:person/p0", "depth": 3},
    ],
    ids=lambda body: body["mode"],
)
def test_a_filter_on_values_only_another_context_holds_finds_nothing(
    filter_stack: list[Item], request_body: dict[str, Any]
) -> None:
    common = {"top_k": 100, "statuses": ALL_STATUSES, "filter": FOREIGN_ONLY}
    answers = {}
    for ctx in (fc.CTX, fc.OTHER):
        body = {k: v.format(ctx=ctx) if isinstance(v, str) else v for k, v in request_body.items()}
        status, answers[ctx] = retrieve(ctx, body | common)
        assert status == 200, answers[ctx]
    assert answers[fc.CTX]["hits"] == []
    # The values are real: the context that holds them finds them with the same filter.
    assert answers[fc.OTHER]["hits"]
    assert all(h["id"].startswith(f"{fc.OTHER}:") for h in answers[fc.OTHER]["hits"])
