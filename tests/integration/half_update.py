"""Two versions of a set of items, and the check that a reader sees each item whole: one version's text,
mentions, edges and lineage, never one version's text beside the other's rows (issue 67, item 3).

Item ``acme:note-i`` at version v mentions ``acme:v{v}/i`` and ``acme:anchor/i`` (one edge pair) and is
derived from ``acme:src-v``; its text starts with "Version v". Used by test_half_update_stack.py and the
crash matrix (test_crash_matrix.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from corpus_stack import graph_path, retrieve, why

CONTEXT = "acme"
SOURCES = [f"{CONTEXT}:src-1", f"{CONTEXT}:src-2"]
VERSION = re.compile(r"^Version (\d) of note (\d+)")


def note_id(number: int) -> str:
    return f"{CONTEXT}:note-{number:05d}"


def own_entity(version: int, number: int) -> str:
    return f"{CONTEXT}:v{version}/{number}"


def anchor(number: int) -> str:
    return f"{CONTEXT}:anchor/{number}"


def _vector(number: int, version: int, dimension: int) -> list[float]:
    return [((number * 7 + i * (version + 2)) % 13) / 13 + 0.01 for i in range(dimension)]


def note(number: int, version: int, dimension: int) -> dict[str, Any]:
    return {
        "id": note_id(number),
        "context_id": CONTEXT,
        "kind": "proposition",
        "text": f"Version {version} of note {number}: the harbour ledger records tide {number}.",
        "created_at": "2026-01-01T00:00:00Z",
        "mentions": [
            {"entity_id": own_entity(version, number), "name": f"Mark {version}-{number}", "type": "Mark"},
            {"entity_id": anchor(number), "name": f"Anchor {number}", "type": "Anchor"},
        ],
        "source_ids": [SOURCES[version - 1]],
        "embedding": _vector(number, version, dimension),
    }


def write_versions(folder: Path, count: int, dimension: int) -> tuple[Path, Path]:
    """``v1.jsonl`` (the sources and every note at version 1) and ``v2.jsonl`` (every note at version 2)."""
    sources = [
        {
            "id": source,
            "context_id": CONTEXT,
            "kind": "document",
            "text": f"Source memo {n + 1} of the harbour ledger.",
            "created_at": "2026-01-01T00:00:00Z",
            "embedding": _vector(10_000 + n, 1, dimension),
        }
        for n, source in enumerate(SOURCES)
    ]
    first, second = folder / "v1.jsonl", folder / "v2.jsonl"
    first.write_text(
        "".join(
            json.dumps(line) + "\n" for line in [*sources, *(note(n, 1, dimension) for n in range(count))]
        )
    )
    second.write_text("".join(json.dumps(note(n, 2, dimension)) + "\n" for n in range(count)))
    return first, second


def version_of(text: str) -> int | None:
    found = VERSION.match(text)
    return int(found.group(1)) if found else None


def assert_whole(hit: dict[str, Any]) -> int | None:
    """A note hit's version, after checking its mentions and sources are that version's."""
    version = version_of(hit["text"])
    if version is None:
        return None
    number = int(hit["id"].rsplit("-", 1)[1])
    mentions = {m["entity_id"] for m in hit.get("mentions", [])}
    assert own_entity(3 - version, number) not in mentions, hit
    assert hit.get("provenance", {}).get("source_ids", [SOURCES[version - 1]]) == [SOURCES[version - 1]], hit
    return version


def read_every_way(numbers: list[int], dimension: int) -> dict[int, int]:
    """Every mode, graph_path and why_explain over the notes ``numbers``, each hit checked whole; the
    version each note showed (every reader agreeing per note, or the check fails)."""
    seen: dict[int, set[int]] = {n: set() for n in numbers}

    def saw(hit: dict[str, Any]) -> None:
        version = assert_whole(hit)
        number = int(hit["id"].rsplit("-", 1)[1]) if version is not None else None
        if number in seen and version is not None:
            seen[number].add(version)

    for mode in ("lexical", "hybrid", "auto"):
        status, body = retrieve(CONTEXT, {"mode": mode, "text": "harbour ledger tide note", "top_k": 50})
        assert status == 200, body
        [saw(hit) for hit in body["hits"]]
    for number in numbers[:5]:
        body_vector = {"mode": "vector", "vector": _vector(number, 2, dimension), "top_k": 20}
        status, body = retrieve(CONTEXT, body_vector)
        assert status == 200, body
        [saw(hit) for hit in body["hits"]]
    for number in numbers:
        for version in (1, 2):
            walk = {"mode": "graph_walk", "entity_id": own_entity(version, number), "depth": 1}
            status, body = retrieve(CONTEXT, walk)
            assert status == 200, body
            for hit in body["hits"]:
                assert hit["id"] == note_id(number) and version_of(hit["text"]) == version, (walk, hit)
                saw(hit)
            status, path = graph_path(CONTEXT, **{"from": own_entity(version, number), "to": anchor(number)})
            assert status == 200, path
            for found in path["paths"]:
                for edge in found["edges"]:
                    assert version_of(edge["text"]) == version, (version, number, edge)
                    seen[number].add(version)
        status, explained = why(CONTEXT, note_id(number))
        if status == 404:
            continue
        assert status == 200, explained
        version = version_of(explained["item"]["text"])
        assert version is not None, explained
        assert {n["id"] for n in explained["derived_from"]["nodes"]} <= {SOURCES[version - 1]}, explained
        seen[number].add(version)
    for number, versions in seen.items():
        assert len(versions) <= 1, (number, versions)
    return {number: next(iter(versions)) for number, versions in seen.items() if versions}
