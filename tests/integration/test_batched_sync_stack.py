"""A sync commits its files a batch at a time (issue 66 item 3, ``ingest.ledger.Batch``): on the local
stack, a folder of pages that name each other synced in batches holds the same chunks, mentions,
back-links and statuses as the same pages ingested one event at a time, as the deployed function does,
and, expecting its pages (``documents.expected_pages``), indexes each chunk once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters.opensearch.client import IndexLayout, shared_client
from retrieval_core.config import Settings
from retrieval_core.ingest.ledger import BATCH_FILES

from dev.ingest_resources import IngestResources
from tests.integration.test_documents_stack import docs, put

__all__ = ["docs"]

TOWNS = [f"{name} Ridge" for name in ("Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel")]
PAGES = BATCH_FILES + len(TOWNS)  # more than one batch: links cross batches both ways


def _page(n: int) -> tuple[str, bytes]:
    """Page ``n``: a town's page (its title named by pages before and after it) or a plain note."""
    later, earlier = TOWNS[(n + 3) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]
    title = TOWNS[n] if n < len(TOWNS) else f"Note {n:03d}"
    body = (
        f"# {title}\n\nThe road from here runs north to {later} in the hills.\n\nA ferry goes to {earlier}."
    )
    return f"p{n:03d}.md", body.encode()


def _chunks(settings: Settings, context_id: str) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Every chunk the context's index holds: its text and its mentions (ids without the context)."""
    client, layout = shared_client(settings), IndexLayout.of(settings)
    client.indices.refresh(index=layout.alias(context_id))
    found = client.search(index=layout.alias(context_id), body={"size": 1000, "query": {"match_all": {}}})
    chunks = {}
    for hit in found["hits"]["hits"]:
        source = hit["_source"]
        mentions = [(m["entity_id"].split(":", 1)[1], m["name"]) for m in source.get("mentions", [])]
        chunks[source["id"].split(":", 1)[1]] = (source["text"], mentions)
    return chunks


def _pages_named(settings: Settings, context_id: str) -> set[str]:
    """The pages the context's chunks mention as pages (not their own: no ``about`` role)."""
    client, layout = shared_client(settings), IndexLayout.of(settings)
    client.indices.refresh(index=layout.alias(context_id))
    found = client.search(index=layout.alias(context_id), body={"size": 1000, "query": {"match_all": {}}})
    return {
        m["name"]
        for hit in found["hits"]["hits"]
        for m in hit["_source"].get("mentions", [])
        if m.get("type") == "page" and not m.get("role")
    }


def _versions(settings: Settings, context_id: str) -> dict[str, int]:
    """How many times each chunk of the context was indexed (its document's ``_version``)."""
    client, layout = shared_client(settings), IndexLayout.of(settings)
    found = client.search(
        index=layout.alias(context_id), body={"size": 1000, "version": True, "query": {"match_all": {}}}
    )
    return {hit["_id"]: hit["_version"] for hit in found["hits"]["hits"]}


def _statuses(context_id: str) -> dict[str, tuple[str, int, Any]]:
    page = bootstrap.container().document_statuses.page(context_id, "", limit=1000, after=None)
    return {s.key: (s.status, s.chunks, s.reason) for s in page.documents}


def test_a_batched_sync_holds_what_one_event_at_a_time_gives(
    docs: tuple[Settings, IngestResources], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval_dev.cli.sync import sync

    settings, resources = docs
    monkeypatch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
    folder = tmp_path / "pages"
    folder.mkdir()
    for n in range(PAGES):
        key, body = _page(n)
        (folder / key).write_bytes(body)
        put(resources, settings, f"contexts/globex/{key}", body)  # one event, one invocation each
    store, searched = bootstrap.container().store, []
    naming = store.chunks_naming
    monkeypatch.setattr(store, "chunks_naming", lambda *asked: searched.append(asked) or naming(*asked))
    report = sync(folder, "acme", delete=False)
    assert {entry["status"] for entry in report} == {"indexed"} and len(report) == PAGES
    batched, alone = _chunks(settings, "acme"), _chunks(settings, "globex")
    assert batched == alone and len(batched) == PAGES
    for n in range(len(TOWNS)):  # each town page names a town before it and one after it: both linked
        _, mentions = batched[f"doc/p{n:03d}.md#0000"]
        assert {TOWNS[(n + 3) % len(TOWNS)], TOWNS[(n + 5) % len(TOWNS)]} <= {name for _, name in mentions}
    assert _statuses("acme") == _statuses("globex")
    # The sync expects its pages (its pre-pass read their titles): each chunk indexed once, where one
    # event at a time re-indexes the chunks a later page's back-link reaches.
    assert set(_versions(settings, "acme").values()) == {1}
    assert max(_versions(settings, "globex").values()) > 1
    # acme had no index before the sync, and every chunk naming a page mentions it ahead: no back-link
    # search is asked (``ExpectedPages.linked_ahead``), and the chunks equal globex's, searched for.
    assert searched == []
    assert {entry["key"]: (entry["status"], entry["chunks"]) for entry in report} == {
        key: status[:2] for key, status in _statuses("acme").items()
    }


def test_a_page_a_sync_expected_that_fails_or_never_comes_is_mentioned_by_no_chunk(
    docs: tuple[Settings, IngestResources],
) -> None:
    """Two pages the sync expected do not come: one's file is empty (failed), the other's is never sent.
    The chunks that named them, given their mentions at their first write, hold what one event at a time
    gives (no mention of either), unlinked in the index through its search and the sync's record."""
    from retrieval_core.documents.expected_pages import ExpectedPages

    settings, resources = docs
    empty, unsent = 2, 5  # pages 7 and 5 name Cedar (2) and Fir (5) before them, pages 0 and 2 after
    bodies = {f"p{n:03d}.md": _page(n)[1] for n in range(len(TOWNS))} | {f"p{empty:03d}.md": b"  \n"}
    expected = ExpectedPages("acme")
    files = bootstrap.container().document_files
    with files.batched(files=3, ahead=True, expected=expected):
        expected.expect({f"contexts/acme/p{n:03d}.md": TOWNS[n] for n in range(len(TOWNS))})
        for key, body in bodies.items():
            if key != f"p{unsent:03d}.md":
                put(resources, settings, f"contexts/acme/{key}", body)
    for key, body in bodies.items():
        if key != f"p{unsent:03d}.md":
            put(resources, settings, f"contexts/globex/{key}", body)
    synced, alone = _chunks(settings, "acme"), _chunks(settings, "globex")
    assert synced == alone and len(synced) == len(TOWNS) - 2
    pages = _pages_named(settings, "acme")
    assert TOWNS[empty] not in pages and TOWNS[unsent] not in pages  # their names stay extracted ones
    assert {TOWNS[0], TOWNS[1]} <= pages  # pages that came are linked
    assert _statuses("acme") == _statuses("globex")
    assert _statuses("acme")[f"p{empty:03d}.md"][0] == "failed"
