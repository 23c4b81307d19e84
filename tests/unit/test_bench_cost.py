"""The bench's cost arithmetic: billed units from calls, and dollars per million from measured figures."""

from __future__ import annotations

import pytest

from bench.cost import TEMPLATE, Prices, RequestFigures, figures_of, function_memory_mb, per_million
from bench.units import item_size, units

PRICES = Prices(
    lambda_gb_second=0.00002, lambda_request=0.2 / 1e6, dynamodb_write_unit=1e-6, dynamodb_read_unit=0.25e-6
)


def test_duration_is_billed_rounded_up_to_the_millisecond_times_memory() -> None:
    row = per_million(RequestFigures("r", 10.2, 3, 1, 1), memory_mb=512, prices=PRICES)
    assert row["billed_ms"] == 11
    assert row["lambda_gb_seconds"] == pytest.approx(1e6 * 0.011 * 0.5)
    assert row["lambda_usd"] == pytest.approx(5_500 * 0.00002 + 0.2)
    assert row["dynamodb_usd"] == pytest.approx(3 * 1 + 1 * 0.25)
    assert row["total_usd"] == pytest.approx(row["lambda_usd"] + row["dynamodb_usd"])
    assert row["opensearch_calls"] == 1e6


def test_memory_comes_from_the_template_globals() -> None:
    memory = function_memory_mb()
    assert 128 <= memory <= 10_240
    assert f"MemorySize: {memory}" in TEMPLATE.read_text().split("Resources:")[0]


def test_batch_get_bills_each_item_rounded_up_on_its_own() -> None:
    small = {"pk": {"S": "a"}, "v": {"S": "x" * 100}}
    large = {"pk": {"S": "b"}, "v": {"S": "x" * 5000}}  # over 4 KB: two units
    call = (
        "BatchGetItem",
        {"RequestItems": {"t": {"Keys": []}}},
        {"Responses": {"t": [small, large]}},
    )
    assert units([call], reader=None) == (0.0, (1 + 2) * 0.5)
    consistent = (call[0], {"RequestItems": {"t": {"Keys": [], "ConsistentRead": True}}}, call[2])
    assert units([consistent], reader=None) == (0.0, 3.0)


def test_an_empty_query_still_costs_half_a_unit_and_a_put_costs_its_kilobytes() -> None:
    query = ("Query", {"TableName": "t"}, {"Items": []})
    item = {"pk": {"S": "p"}, "blob": {"S": "y" * 1500}}
    put = ("PutItem", {"TableName": "t", "Item": item}, {})
    assert item_size(item) > 1024
    assert units([query, put], reader=None) == (2.0, 0.5)


def test_an_update_needs_a_reader_for_its_size() -> None:
    update = ("UpdateItem", {"TableName": "t", "Key": {"pk": {"S": "p"}}}, {})
    with pytest.raises(ValueError, match="reader"):
        units([update], reader=None)


def test_figures_are_taken_from_each_section_that_ran() -> None:
    results = {
        "retrieve": {
            "lexical": {"handler": {"p50_ms": 4.0}, "opensearch_calls": 1, "write_units": 0, "read_units": 0},
            "hybrid_vs_naive": {"handler_over_naive_p50": 1.0},
        },
        "graph": {"graph_path": {"3": {"p50_ms": 30.0, "read_units": 5.5, "opensearch_calls": 1}}},
    }
    labels = [f.label for f in figures_of(results)]
    assert labels == ["retrieve lexical", "graph_path, depth 3"]
    assert figures_of(results)[1].read_units == 5.5
