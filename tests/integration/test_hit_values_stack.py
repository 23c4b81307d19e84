"""On the real index, in every mode: each hit's ``metadata`` and ``location`` are the values of that item
in the corpus that was loaded, not only present. The expected values are read from the corpus file
here, by the rule the API documents: the first grounding span with a URI (its chunk and offsets), else the
item's ``metadata.uri`` whole, else none."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus_stack import retrieve
from stack_state import SAMPLE_CORPUS

QUESTION = "Alice Chen leads the Payments team"
MODES: dict[str, dict[str, Any]] = {
    "lexical": {"mode": "lexical", "text": QUESTION},
    "vector": {"mode": "vector", "text": QUESTION},
    "hybrid": {"mode": "hybrid", "text": QUESTION},
    "hybrid, feedback off": {"mode": "hybrid", "text": QUESTION, "feedback": {"enabled": False}},
    "auto": {
        "mode": "auto",
        "text": "Who led the Payments team in March 2026?",
        "now": "2026-06-01T09:00:00Z",
    },
    "entity": {"mode": "entity", "entity_id": "acme:person/alice-chen"},
    "graph_walk": {"mode": "graph_walk", "entity_id": "acme:person/alice-chen"},
    "temporal": {
        "mode": "temporal",
        "window": {"from": "2026-03-01T00:00:00Z", "to": "2026-03-31T00:00:00Z"},
    },
}
CORPUS = {item["id"]: item for item in map(json.loads, SAMPLE_CORPUS.read_text().splitlines())}


def _expected_location(item: dict[str, Any]) -> dict[str, Any] | None:
    for span in item.get("grounding") or []:
        if span.get("uri"):
            return {
                "uri": span["uri"],
                "chunk_id": span.get("chunk_id"),
                "start": span.get("start"),
                "end": span.get("end"),
                "page": span.get("page"),
                "section": span.get("section"),
                "version": span.get("version"),
                "path": span.get("path"),
                "local_path": span.get("local_path"),
                "anchor": span.get("anchor"),
                "url": span.get("url") or _web_link(span["uri"]),
            }
    uri = (item.get("metadata") or {}).get("uri")
    empty = dict.fromkeys(
        ("chunk_id", "start", "end", "page", "section", "version", "path", "local_path", "anchor")
    )
    return {"uri": uri, **empty, "url": _web_link(uri)} if uri else None


def _web_link(uri: str) -> str | None:
    """A citation opens a web address as it is; any other URI (s3://) is no link by itself."""
    return uri if uri.lower().startswith(("http://", "https://")) else None


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_returns_each_hit_s_own_metadata_and_location(corpus_settings: Any, mode: str) -> None:
    status, answer = retrieve("acme", {"top_k": 20, **MODES[mode]})
    assert status == 200, answer
    assert answer["hits"], mode
    located = 0
    for hit in answer["hits"]:
        item = CORPUS[hit["id"]]
        assert hit["metadata_truncated"] is False  # the sample's metadata is small
        assert hit["metadata"] == (item.get("metadata") or {}), hit["id"]
        assert hit["location"] == _expected_location(item), hit["id"]
        located += hit["location"] is not None
    assert located, f"{mode}: no hit with a location, so the check above compared nothing but None"
