"""Hits carry what an agent cites (metadata under a cap, validity, a location) in every mode, ``include``
drops what a caller does not need, a packet can show each citation's URI, and an id with '#' is
reachable through the API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_functions import CHUNK, FakeFunctions, fake_functions
from retrieval_core.models.hit_parts import METADATA_CAP_CHARS
from retrieval_core.models.hits import capped_metadata, location_of
from retrieval_dev.cli.events import api_event, why_event

CITED = {"metadata", "metadata_truncated", "valid_from", "valid_to", "location"}
NO_PAGE = {"page": None, "section": None, "version": None, "path": None, "local_path": None, "anchor": None}
"""A span that names no page, section, source version or file path (a JSON Lines chunk without them)."""
CHUNK_LOCATION = {
    "uri": "s3://acme-docs/ledger.md",
    "chunk_id": CHUNK.id,
    "start": 0,
    "end": 20,
    **NO_PAGE,
    "url": None,
}
MODES: dict[str, dict[str, Any]] = {
    "lexical": {"mode": "lexical", "text": "ledger design"},
    "vector": {"mode": "vector", "vector": [0.5, 1.0, 0.0, 0.5]},
    "hybrid": {"mode": "hybrid", "text": "ledger design", "vector": [0.5, 1.0, 0.0, 0.5]},
    "entity": {"mode": "entity", "entity_id": "acme:person/alice"},
    "temporal": {
        "mode": "temporal",
        "window": {"from": "2026-01-01T00:00:00Z", "to": "2026-01-31T00:00:00Z"},
    },
}


@pytest.fixture
def functions() -> Iterator[FakeFunctions]:
    with fake_functions() as composed:
        yield composed


def retrieve(functions: FakeFunctions, body: dict[str, Any]) -> dict[str, Any]:
    status, answer, _ = functions.api("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    assert status == 200, answer
    return answer


def test_metadata_is_capped_by_whole_keys_in_order() -> None:
    small = {"team": "payments", "uri": "hr://acme/E-1"}
    assert capped_metadata(small) == (small, False)
    kept, truncated = capped_metadata({"a": "x" * 1000, "big": "y" * METADATA_CAP_CHARS, "b": "z" * 900})
    assert truncated and list(kept) == ["a", "b"]
    assert len(json.dumps(kept, separators=(",", ":"))) <= METADATA_CAP_CHARS
    exact = {"k": "v" * (METADATA_CAP_CHARS - len('{"k":""}'))}
    assert capped_metadata(exact) == (exact, False)
    assert capped_metadata({"k": "v" * (METADATA_CAP_CHARS - len('{"k":""}') + 1)}) == ({}, True)
    assert capped_metadata(None) == ({}, False)


def test_location_is_the_first_grounding_uri_else_metadata_uri() -> None:
    spans = [{"chunk_id": "a:d#c1"}, {"chunk_id": "a:d#c2", "uri": "s3://b/k", "start": 3, "end": 9}]
    assert location_of(spans, {"uri": "https://x"}) == {
        "uri": "s3://b/k",
        "chunk_id": "a:d#c2",
        "start": 3,
        "end": 9,
        **NO_PAGE,
        "url": None,
    }
    assert location_of([], {"uri": "https://x"}) == {  # a web address is its own link
        "uri": "https://x",
        "chunk_id": None,
        "start": None,
        "end": None,
        "url": "https://x",
    }
    paged = {"chunk_id": "a:d#c3", "uri": "s3://b/k.pdf", "page": 2, "section": "A > B", "version": "v1"}
    assert location_of([paged], None) == {**NO_PAGE, **paged, "start": None, "end": None, "url": None}


def test_a_file_chunk_s_location_carries_its_path_section_anchor_and_link() -> None:
    span = {
        "chunk_id": "pg:doc/server-shutdown.html#0002",
        "uri": "s3://retrieval-ingest/contexts/pg/server-shutdown.html",
        "section": "19.5. Shutting Down the Server",
        "anchor": "SERVER-SHUTDOWN",
        "path": "server-shutdown.html",
        "local_path": "/usr/share/doc/pg/html/server-shutdown.html",
        "url": "https://www.postgresql.org/docs/16/server-shutdown.html#SERVER-SHUTDOWN",
    }
    location = location_of([span], None)
    assert location is not None and location == {**NO_PAGE, **span, "start": None, "end": None}
    assert location_of([], {"uri": 7}) is None and location_of([], None) is None


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_returns_what_a_citation_needs(functions: FakeFunctions, mode: str) -> None:
    hits = {hit["id"]: hit for hit in retrieve(functions, {**MODES[mode], "top_k": 10})["hits"]}
    assert CHUNK.id in hits, mode
    chunk = hits[CHUNK.id]
    assert chunk["metadata"] == {"team": "ledger", "uri": "https://wiki.acme/ledger"}  # notes: over the cap
    assert chunk["metadata_truncated"] is True
    assert (chunk["valid_from"], chunk["valid_to"]) == ("2025-01-01T00:00:00Z", None)
    assert chunk["location"] == CHUNK_LOCATION
    for hit in hits.values():
        assert hit.keys() >= CITED


def test_a_graph_walk_hit_carries_the_fields_too(functions: FakeFunctions) -> None:
    hits = retrieve(functions, {"mode": "graph_walk", "entity_id": "acme:person/alice"})["hits"]
    assert hits and all(hit.keys() >= CITED for hit in hits)
    assert all(hit["location"] is None and hit["metadata"] == {} for hit in hits)  # these items name none


def test_include_keeps_only_the_parts_asked_for_and_the_api_and_direct_bodies_agree(
    functions: FakeFunctions,
) -> None:
    body = {**MODES["lexical"], "include": ["location", "validity"]}
    hit = next(h for h in retrieve(functions, body)["hits"] if h["id"] == CHUNK.id)
    assert set(hit) == {
        "id",
        "kind",
        "score",
        "relevance",
        "status",
        "confidence",
        "created_at",
        "found_by",
    } | {
        "location",
        "valid_from",
        "valid_to",
    }
    direct = functions.call("retrieve", {"context_id": "acme", "request": body})
    assert direct["statusCode"] == 200 and direct["body"]["hits"] == retrieve(functions, body)["hits"]


def test_include_is_presentation_not_a_new_question(functions: FakeFunctions) -> None:
    session = {"session_id": "cite-s1"}
    retrieve(functions, {**MODES["lexical"], **session})
    status, answer, _ = functions.api(
        "retrieve",
        api_event("POST", "/v1/retrieve", "acme", body={**MODES["lexical"], **session, "include": ["text"]}),
    )
    assert (status, answer["error"]) == (409, "duplicate_query")


@pytest.mark.parametrize("include", [[], ["everything"], "text"])
def test_a_bad_include_is_a_422_naming_it(functions: FakeFunctions, include: Any) -> None:
    status, answer, _ = functions.api(
        "retrieve", api_event("POST", "/v1/retrieve", "acme", body={**MODES["lexical"], "include": include})
    )
    assert status == 422 and answer["fields"][0]["field"].startswith("include")


@pytest.mark.parametrize("shape", ["passages", "brief"])
def test_a_packet_can_show_each_citations_uri(functions: FakeFunctions, shape: str) -> None:
    pack = {"max_chars": 2000, "shape": shape}
    plain = retrieve(functions, {**MODES["lexical"], "pack": pack})["context_packet"]
    cited = retrieve(functions, {**MODES["lexical"], "pack": {**pack, "cite_uri": True}})["context_packet"]
    assert "<s3://acme-docs/ledger.md>" in cited["text"] and "s3://" not in plain["text"]
    assert cited["used"] <= cited["budget"]
    assert {item["id"]: item["uri"] for item in cited["items"]}[CHUNK.id] == CHUNK_LOCATION["uri"]


def test_an_id_with_a_hash_is_explained_through_the_api(functions: FakeFunctions) -> None:
    event = why_event("acme", CHUNK.id)
    assert event["path"] == "/v1/why/acme:doc-1%23c1"  # as a client sends it, and API Gateway passes it
    status, answer, _ = functions.api("why_explain", event)
    assert status == 200, answer
    assert answer["item"]["id"] == CHUNK.id
