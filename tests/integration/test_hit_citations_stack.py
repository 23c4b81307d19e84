"""On the real index: every mode's hits, and a second page's, carry what an agent cites (metadata,
validity, a location) read from the documents' ``_source``; ``include`` leaves out what is not asked for."""

from __future__ import annotations

from typing import Any

import pytest
from corpus_stack import retrieve

CITED = {"metadata", "metadata_truncated", "valid_from", "valid_to", "location"}
CHUNK = "acme:doc-04#c1"  # a document chunk of the sample corpus: its metadata names its uri
MODES: dict[str, dict[str, Any]] = {
    "lexical": {"mode": "lexical", "text": "Alice Chen leads the Payments team"},
    "vector": {"mode": "vector", "text": "Alice Chen leads the Payments team"},
    "hybrid": {"mode": "hybrid", "text": "Alice Chen leads the Payments team"},
    "entity": {"mode": "entity", "entity_id": "acme:person/alice-chen", "top_k": 100, "kinds": ["document"]},
    "graph_walk": {"mode": "graph_walk", "entity_id": "acme:person/alice-chen"},
    "temporal": {
        "mode": "temporal",
        "window": {"from": "2026-03-01T00:00:00Z", "to": "2026-03-31T00:00:00Z"},
    },
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_returns_the_citation_fields(corpus_settings: Any, mode: str) -> None:
    status, answer = retrieve("acme", MODES[mode])
    assert status == 200, answer
    assert answer["hits"], mode
    for hit in answer["hits"]:
        assert hit.keys() >= CITED, mode
        if hit["location"] is not None:
            assert hit["location"]["uri"]
    chunk = next((h for h in answer["hits"] if h["id"] == CHUNK), None)
    if chunk is not None:
        assert chunk["location"]["uri"] == chunk["metadata"]["uri"]


def test_the_chunk_cites_its_uri(corpus_settings: Any) -> None:
    status, answer = retrieve("acme", {**MODES["lexical"], "top_k": 10})
    assert status == 200, answer
    chunk = next(h for h in answer["hits"] if h["id"] == CHUNK)
    # No grounding span: the location is the document's metadata.uri, whole.
    assert chunk["location"] == {
        "uri": "s3://acme-docs/org/2026-03.md",
        "chunk_id": None,
        "start": None,
        "end": None,
        "page": None,
        "section": None,
        "version": None,
        "path": None,
        "local_path": None,
        "anchor": None,
        "url": None,
    }
    assert chunk["metadata"]["title"] == "Engineering org update - March 2026"
    assert chunk["metadata_truncated"] is False


def test_a_second_page_carries_them_and_include_leaves_out_the_rest(corpus_settings: Any) -> None:
    body = {"mode": "lexical", "text": "payments", "top_k": 3, "include": ["location", "validity"]}
    status, first = retrieve("acme", body)
    assert status == 200 and first["next_token"], first
    status, second = retrieve("acme", {**body, "include": ["metadata"], "next_token": first["next_token"]})
    assert status == 200, second
    assert second["hits"] and {h["id"] for h in second["hits"]}.isdisjoint(h["id"] for h in first["hits"])
    always = {"id", "kind", "score", "relevance", "status", "confidence", "created_at", "found_by"}
    assert all(set(h) == always | {"location", "valid_from", "valid_to"} for h in first["hits"])
    assert all(set(h) == always | {"metadata", "metadata_truncated"} for h in second["hits"])
