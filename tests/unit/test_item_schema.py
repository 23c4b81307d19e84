"""The item schema: what it accepts, and that every rejection names its field."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from retrieval_core.loading.parse import LineError, Upsert, parse_lines
from retrieval_core.models.item import Item

GOOD = {
    "id": "acme:p-1",
    "context_id": "acme",
    "kind": "proposition",
    "text": "Alice leads Payments.",
    "created_at": "2026-03-02T09:00:00Z",
    "mentions": [{"entity_id": "acme:person/alice", "name": "Alice", "type": "Person"}],
    "source_ids": ["acme:doc-1#c1"],
}


def test_a_good_item_validates() -> None:
    assert Item.model_validate(GOOD).entity_ids == ["acme:person/alice"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"source_ids": ["globex:doc-1"]}, "source_ids"),
        ({"supersedes": ["globex:p-7"]}, "supersedes"),
        ({"contradicts": ["p-7"]}, "contradicts"),
        ({"mentions": [{"entity_id": "globex:person/alice", "name": "A", "type": "Person"}]}, "mentions"),
        ({"grounding": [{"chunk_id": "globex:doc#c1"}]}, "grounding"),
        ({"id": "globex:p-1"}, "id"),
        ({"kind": "memo"}, "kind"),
        ({"status": "DELETED"}, "status"),
        ({"confidence": 1.5}, "confidence"),
        ({"created_at": "2026-03-02T09:00:00"}, "created_at"),
        ({"embedding": [float("nan")]}, "embedding"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_rejections_name_the_field(change: dict, field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Item.model_validate(GOOD | change)
    assert raised.value.errors()[0]["loc"][0] == field


def test_context_id_is_required() -> None:
    without = {k: v for k, v in GOOD.items() if k != "context_id"}
    with pytest.raises(ValidationError) as raised:
        Item.model_validate(without)
    assert any(e["loc"] == ("context_id",) for e in raised.value.errors())


def test_parse_lines_reports_line_and_field_and_keeps_good_lines() -> None:
    import json

    lines = [json.dumps(GOOD), "", "{not json", json.dumps(GOOD | {"source_ids": ["globex:x"]}), "[1]"]
    results = list(parse_lines(lines))
    assert isinstance(results[0], Upsert) and results[0].position == 1
    errors = [r for r in results if isinstance(r, LineError)]
    assert [(e.line, e.field) for e in errors] == [(3, "(line)"), (4, "source_ids"), (5, "(line)")]
    assert "globex:x" in errors[1].message


def test_context_id_option_fills_and_guards() -> None:
    import json

    without = {k: v for k, v in GOOD.items() if k != "context_id"}
    results = list(parse_lines([json.dumps(without), json.dumps(GOOD)], context_id="globex"))
    assert all(isinstance(r, LineError) for r in results)
    results = list(parse_lines([json.dumps(without)], context_id="acme"))
    assert isinstance(results[0], Upsert) and results[0].item.context_id == "acme"


def test_the_published_json_schema_is_current() -> None:
    from pathlib import Path

    published = Path(__file__).resolve().parents[2] / "docs" / "item.schema.json"
    assert json.loads(published.read_text()) == Item.model_json_schema(), (
        "docs/item.schema.json is stale: run `retrieval schema > docs/item.schema.json`"
    )
