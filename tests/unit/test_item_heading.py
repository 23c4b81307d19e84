"""An item's heading is the section of its own chunk: what is searched and embedded with its text."""

from __future__ import annotations

from retrieval_core.models.item import Item, embedding_input


def item(**fields: object) -> Item:
    base = {"id": "acme:doc/p.md#0000", "context_id": "acme", "kind": "document", "text": "It stands."}
    return Item.model_validate({**base, "created_at": "2026-12-04T00:00:00Z", **fields})


def test_a_chunk_of_a_page_is_headed_by_its_own_section() -> None:
    chunk = item(
        grounding=[{"chunk_id": "acme:doc/p.md#0000", "uri": "s3://b/p.md", "section": "Tower > Use"}]
    )
    assert chunk.heading == "Tower > Use"
    assert chunk.embedding_text == "Tower > Use\nIt stands." == embedding_input("It stands.", "Tower > Use")


def test_an_item_grounded_in_another_chunk_s_section_has_no_heading() -> None:
    proposition = item(
        id="acme:p-1",
        kind="proposition",
        grounding=[{"chunk_id": "acme:doc/p.md#0000", "uri": "s3://b/p.md", "section": "Tower"}],
    )
    assert proposition.heading == "" and proposition.embedding_text == "It stands."
    assert item().heading == ""
