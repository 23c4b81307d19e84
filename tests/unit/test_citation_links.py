"""Citations that open: where a prefix's files are published (or were read from, for a local sync), each
chunk's grounding carries the file's path, local path and link (at its section's anchor), a new base URL
indexes the file again, and a hit's location, a packet's citations, the MCP tool's text and the Bedrock
route's metadata all show the section and the link."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink
from pydantic import ValidationError
from retrieval_core.documents.chunk_items import FileRef, chunk_items
from retrieval_core.documents.chunking import Chunk
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.documents.sources import NOWHERE, DocumentSources, Placement, anchored
from retrieval_core.entrypoints.bedrock.answers import retrieval_result
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.loading.parse import Upsert
from retrieval_core.models.hits import Hit, hit_of
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.packing.options import PackOptions
from retrieval_core.packing.packer import pack_hits
from retrieval_dev.mcp.citations import hit_list

from tests.unit.test_document_units import Embedder, Vectors

SOURCES = DocumentSources.model_validate(
    {
        "prefixes": {
            "contexts/pg/": {"url": "https://www.postgresql.org/docs/16", "folder": "/srv/pg/html"},
            "contexts/pg/release notes/": {"url": "https://notes.example/r/"},
        }
    }
)


def test_the_longest_prefix_places_a_file_at_its_base_url_and_folder() -> None:
    assert SOURCES.place("contexts/pg/server-shutdown.html") == Placement(
        "https://www.postgresql.org/docs/16/server-shutdown.html", "/srv/pg/html/server-shutdown.html"
    )
    # The longer prefix wins, and a name is percent-encoded where a URL path cannot hold it as it is.
    assert SOURCES.place("contexts/pg/release notes/v16 é.html") == Placement(
        "https://notes.example/r/v16%20%C3%A9.html", None
    )
    assert SOURCES.place("contexts/acme/a.md") == NOWHERE and NOWHERE.fingerprint == ""
    assert SOURCES.place("contexts/pg/a.md").fingerprint != SOURCES.place("contexts/pg/b.md").fingerprint


def test_an_anchor_opens_the_section_and_needs_encoding_only_where_a_fragment_does() -> None:
    page = "https://host/docs/page.html"
    assert anchored(page, "SERVER-SHUTDOWN") == f"{page}#SERVER-SHUTDOWN"
    assert anchored(page, "id with space") == f"{page}#id%20with%20space"
    assert anchored(page, None) == anchored(page, "") == page


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ({"url": "ftp://host/docs/"}, "http(s) or file URL"),
        ({"url": "https://host/docs/#top"}, "without spaces or a fragment"),
        ({"url": "https://host/my docs/"}, "without spaces"),
        ({"folder": "relative/html"}, "absolute path"),
        ({"colour": "red"}, "Extra inputs"),
    ],
)
def test_a_source_that_cannot_make_a_link_is_refused(source: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        DocumentSources.model_validate({"prefixes": {"contexts/pg/": source}})


def test_a_placed_file_s_chunks_carry_their_path_local_path_and_link() -> None:
    file = FileRef("pg", "b", "contexts/pg/a/x.html", "a/x.html", "v1", SOURCES.place("contexts/pg/a/x.html"))
    chunks = [Chunk("Stop the server.", 0, 16, section=("19.5. Shutting Down",)), Chunk("More.", 16, 21)]
    items = chunk_items(
        file, chunks, metadata={}, mentions=[[], []], vectors={}, created_at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    for item in items:
        (span,) = item.grounding
        assert (span.path, span.local_path) == ("a/x.html", "/srv/pg/html/a/x.html")
        assert span.url == "https://www.postgresql.org/docs/16/a/x.html"
    unplaced = FileRef("acme", "b", "contexts/acme/n.md", "n.md", "v1")
    (item,) = chunk_items(
        unplaced,
        chunks[:1],
        metadata={},
        mentions=[[]],
        vectors={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert (item.grounding[0].path, item.grounding[0].local_path, item.grounding[0].url) == (
        "n.md",
        None,
        None,
    )


def _files(
    sources: DocumentSources,
    objects: MemoryObjects,
    statuses: MemoryDocumentStatuses,
    sink: RecordingSink | None = None,
) -> DocumentFiles:
    return DocumentFiles(
        sink=sink or RecordingSink(),
        objects=objects,
        statuses=statuses,
        embedder=Embedder(),
        vectors=Vectors(),
        mentions=MentionFinder(None, None),
        chunking=ChunkingPolicy(),
        metadata={},
        sources=sources,
    )


def test_a_file_published_at_a_new_base_url_is_indexed_again_with_the_new_link() -> None:
    objects, statuses = MemoryObjects(), MemoryDocumentStatuses()
    key = "contexts/pg/page.md"
    objects.blobs[("b", key)] = b"# Page\n\nThe words of the page."
    first = _files(NO_SOURCES_HERE, objects, statuses).created(ObjectRef("b", key, "v1", sequencer="01"))
    assert first is not None and first.status == "indexed"
    same = _files(NO_SOURCES_HERE, objects, statuses).created(ObjectRef("b", key, "v1", sequencer="02"))
    assert same is not None and same.status == "unchanged"
    sink = RecordingSink()
    moved = _files(SOURCES, objects, statuses, sink).created(ObjectRef("b", key, "v1", sequencer="03"))
    assert moved is not None and moved.status == "updated"
    (load,) = sink.loads
    (entry,) = [e for e in load if isinstance(e, Upsert)]
    # At the section's anchor: the Markdown heading's slug.
    assert entry.item.grounding[0].url == "https://www.postgresql.org/docs/16/page.md#page"


NO_SOURCES_HERE = DocumentSources()


STORED = {
    "id": "pg:doc/server-shutdown.html#0002",
    "context_id": "pg",
    "kind": "document",
    "status": "ACTIVE",
    "text": "The server can be shut down in three ways. Smart shutdown waits for clients.",
    "created_at": "2026-01-01T00:00:00Z",
    "grounding": [
        {
            "chunk_id": "pg:doc/server-shutdown.html#0002",
            "uri": "s3://retrieval-ingest/contexts/pg/server-shutdown.html",
            "start": 100,
            "end": 180,
            "section": "19.5. Shutting Down\nthe Server (smart)",
            "anchor": "SERVER-SHUTDOWN",
            "path": "server-shutdown.html",
            "local_path": "/srv/pg/html/server-shutdown.html",
            "url": "https://www.postgresql.org/docs/16/server-shutdown.html#SERVER-SHUTDOWN",
        }
    ],
}
LINK = "https://www.postgresql.org/docs/16/server-shutdown.html#SERVER-SHUTDOWN"


def _hit() -> Hit:
    return hit_of(STORED, score=0.5)


def test_a_packet_cites_the_section_and_the_link_in_its_label_and_its_items() -> None:
    for shape in ("passages", "brief"):
        packet = pack_hits(
            [_hit()], {STORED["id"]: "S1"}, PackOptions(max_chars=2000, shape=shape, cite_uri=True)
        )
        label = packet.text.splitlines()[1 if shape == "brief" else 2]
        # One line, no bracket of the section's own: it cannot close the label or fake a URI.
        assert f"19.5. Shutting Down the Server smart, <{LINK}>) " in label, label
        (item,) = packet.items
        assert (item.section, item.url) == ("19.5. Shutting Down\nthe Server (smart)", LINK)
        assert item.uri == STORED["grounding"][0]["uri"]
    plain = pack_hits([_hit()], {STORED["id"]: "S1"}, PackOptions(max_chars=2000))
    assert LINK not in plain.text and plain.items[0].url == LINK


def test_the_mcp_text_names_the_section_and_the_link_that_opens_it() -> None:
    body = {"hits": [_hit().model_dump(mode="json")], "receipt": {"source_ids": ["S1"]}}
    line = hit_list(body).splitlines()[1]
    section = 'section "19.5. Shutting Down the Server (smart)"'
    assert line.startswith(f"[S1] {STORED['id']} (document, score 0.5) {section} <{LINK}>: ")
    unlinked = {**_hit().model_dump(mode="json"), "location": {"uri": "s3://b/k.md"}}
    assert "(document, score 0.5) <s3://b/k.md>: " in hit_list({"hits": [unlinked]})


def test_the_bedrock_metadata_carries_the_section_anchor_link_and_paths_under_documented_keys() -> None:
    metadata = retrieval_result(_hit()).metadata
    assert metadata["x-retrieval-section"] == "19.5. Shutting Down\nthe Server (smart)"
    assert metadata["x-retrieval-anchor"] == "SERVER-SHUTDOWN"
    assert metadata["x-retrieval-url"] == LINK
    assert metadata["x-retrieval-path"] == "server-shutdown.html"
    assert metadata["x-retrieval-local-path"] == "/srv/pg/html/server-shutdown.html"
    assert metadata["x-amz-bedrock-kb-source-uri"] == STORED["grounding"][0]["uri"]
    bare = hit_of({**STORED, "grounding": [{"chunk_id": STORED["id"], "uri": "s3://b/k.md"}]}, score=0.5)
    assert (
        not {"x-retrieval-section", "x-retrieval-url", "x-retrieval-anchor"}
        & retrieval_result(bare).metadata.keys()
    )
