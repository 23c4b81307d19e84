"""``retrieval eval --as-files`` loads its collection the way ``retrieval sync`` loads a folder (issue 66):
the pages are written to a folder and synced, so the context's dictionary is read once and the index is
made searchable when a reader needs it, not after every file; and the links the pages make, forwards and
backwards, are held as they are when each file is refreshed alone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from opensearchpy import OpenSearch
from retrieval_core.adapters import s3_objects
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.index import ContextIndices
from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.config import Settings
from retrieval_core.ports import NamedEntity
from retrieval_dev.evaluation.as_files import files_index
from retrieval_dev.evaluation.collection import CONTEXT_ID, Document

from dev.ingest_resources import scratch_ingest

TITLES = [f"Harbour Station {name}" for name in ("Alder", "Birch", "Cedar", "Damson", "Elder", "Fir")]


def _pages() -> list[Document]:
    """Six pages, each naming the page before it and the page after it (a link each way)."""
    pages = []
    for n, title in enumerate(TITLES):
        before, after = TITLES[n - 1], TITLES[(n + 1) % len(TITLES)]
        body = (
            f"{title} is a tide gauge on the north quay. Its readings are checked against {before} "
            f"every morning, and the harbour master compares them with {after} before a ship sails. "
            "The gauge was rebuilt after the storm of the long winter and now logs every quarter hour."
        )
        pages.append(Document(id=f"p{n}", title=title, body=body))
    return pages


def test_a_collection_as_files_is_synced_with_one_dictionary_read_and_deferred_refreshes(
    fresh_settings: Settings, opensearch: OpenSearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = fresh_settings.dynamodb_endpoint
    assert endpoint
    refreshed: list[set[str]] = []
    dictionary_reads = [0]
    refresh, whole = ContextIndices.refresh, OpenSearchStore.entity_names

    def counted_refresh(self: ContextIndices, context_ids: Iterable[str]) -> None:
        context_ids = set(context_ids)
        refreshed.append(context_ids)
        refresh(self, context_ids)

    def counted_names(self: OpenSearchStore, context_id: str) -> list[NamedEntity]:
        dictionary_reads[0] += 1
        return whole(self, context_id)

    monkeypatch.setattr(ContextIndices, "refresh", counted_refresh)
    monkeypatch.setattr(OpenSearchStore, "entity_names", counted_names)
    with scratch_ingest(fresh_settings, "asfiles") as resources:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        monkeypatch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
        s3_objects.s3_client.cache_clear()
        settings = fresh_settings.model_copy(update={"entity_extractor": "local"})
        with files_index(settings, _pages(), pages=True) as scoped:
            hits = _chunks(opensearch, scoped)

    assert sorted(hit["page"] for hit in hits) == [f"p{n}.md" for n in range(len(TITLES))]
    assert dictionary_reads[0] == 1
    assert 1 <= sum(CONTEXT_ID in contexts for contexts in refreshed) < len(TITLES) // 2
    for n, hit in enumerate(hits):
        named = hit["named"]
        assert {TITLES[n - 1], TITLES[(n + 1) % len(TITLES)]} <= named, (hit["page"], named)


def _chunks(client: OpenSearch, settings: Settings) -> list[dict[str, Any]]:
    """Each page's chunk (searchable now) with the pages its text links to."""
    found = client.search(
        index=IndexLayout.of(settings).alias(CONTEXT_ID),
        body={"query": {"match_all": {}}, "size": 100, "_source": ["id", "mentions"]},
    )["hits"]["hits"]
    hits = []
    for hit in sorted(found, key=lambda hit: hit["_source"]["id"]):
        mentions = hit["_source"].get("mentions", [])
        named = {m["name"] for m in mentions if m["type"] == "page" and m.get("role") != "about"}
        hits.append({"page": hit["_source"]["id"].split("/")[-1].split("#")[0], "named": named})
    return hits
