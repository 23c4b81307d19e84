"""A folder of a manual's pages synced into a context of its own with `retrieval sync --base-url`'s
placement (``published_sources``): the citations tests and the workbench's hit card read its hits."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.config import Settings

BASE_URL = "https://docs.example.org/manual/"
QUESTION = "how does a fast shutdown of the server end the client sessions"
PAGE = """<!DOCTYPE html><html><head><title>19.5. Shutting Down the Server</title></head><body>
<div class="navheader"><a href="index.html">Home</a> <a href="next.html">Next</a></div>
<div class="sect1" id="SERVER-SHUTDOWN"><div class="titlepage"><h2 class="title">19.5. Shutting Down the
Server</h2></div><p>There are several ways to shut down the database server. Under the hood they all
reduce to sending a signal to the supervisor process.</p>
<div class="sect2" id="SERVER-SHUTDOWN-FAST"><h3 class="title">19.5.1. Fast Shutdown</h3><p>Fast
shutdown mode: the server disallows new connections and sends all existing server processes SIGTERM,
which will cause them to abort their current transactions and end the client sessions promptly.</p></div>
<div class="sect2" id="SERVER-SHUTDOWN-SMART"><h3 class="title">19.5.2. Smart Shutdown</h3><p>Smart
shutdown mode waits for every client session to disconnect before the server stops; new connections are
refused meanwhile, and an online backup in progress is allowed to finish first.</p></div></div>
</body></html>"""
GUIDE = "# Backup guide\n\n## Dumps\n\nA nightly dump of every database is copied to the vault.\n"


@contextmanager
def published_manual(corpus_settings: Settings, folder: Path) -> Iterator[str]:
    """Syncs the manual's two pages from ``folder`` into a new context; yields the context."""
    (folder / "admin").mkdir()
    (folder / "admin" / "server shutdown.html").write_text(PAGE)
    (folder / "backup.md").write_text(GUIDE)
    context, report = synced(corpus_settings, folder, BASE_URL)
    assert {entry["key"]: entry["status"] for entry in report} == {
        "admin/server shutdown.html": "indexed",
        "backup.md": "indexed",
    }
    yield context


def synced(corpus_settings: Settings, folder: Path, base_url: str | None) -> tuple[str, list[dict[str, Any]]]:
    """``folder`` synced into a new context, placed as `retrieval sync [--base-url]` places it; the
    context and the sync's report."""
    from retrieval_core import bootstrap
    from retrieval_core.adapters import s3_objects
    from retrieval_dev.cli.sync import published_sources, sync

    from dev.ingest_resources import scratch_ingest

    context = f"cite-{uuid.uuid4().hex[:8]}"
    sources = published_sources("{}", context, folder, base_url)
    with scratch_ingest(corpus_settings, "ct") as resources, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL_S3", corpus_settings.dynamodb_endpoint or "")
        patch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
        s3_objects.s3_client.cache_clear()
        settings = corpus_settings.model_copy(update={"ingest_queue_url": None, "document_sources": sources})
        with bootstrap.use(bootstrap.Container(settings)):
            report = sync(folder, context, delete=False)
    s3_objects.s3_client.cache_clear()
    return context, report
