"""The collection as files: each document written as ``<id>.txt`` (title and body) or, for a BEIR corpus,
as a Markdown page ``<id>.md`` (``# title``, then the body) into a folder, and that folder synced by
``retrieval sync``'s own function into ``contexts/cran/`` of the local ingest bucket (parsing, chunking,
entity mentions, statuses; the dictionary read once and the index refreshed when a reader needs it, not
after each file), the path a team with a folder of documents takes. ``retrieval eval --as-files``
scores it beside nothing else changed, so the documents path can be compared with loading the same
texts as JSON Lines."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from retrieval_core.config import Settings
from retrieval_core.ports import Embedder

from .collection import CONTEXT_ID, Document
from .provision import ALIAS_PREFIX, EvalLoadError, _delete_indices


def file_name(document_id: str, pages: bool) -> str:
    return f"{document_id}.{'md' if pages else 'txt'}"


@contextmanager
def files_index(
    settings: Settings,
    documents: Sequence[Document],
    *,
    embedder: Embedder | None = None,
    pages: bool = False,
) -> Iterator[Settings]:
    """Ingest ``documents`` as text files into a fresh alias and bucket; the handlers serve it until the
    block ends. ``pages``: as Markdown pages (``# title``, then the body: the title is the page's
    entity), as a BEIR corpus of encyclopaedia passages is brought; else as ``.txt`` of title and body.
    ``embedder`` (a cache, say) replaces the deployment's, for the ingest function and the
    queries alike, as ``provision.evaluation_index`` does for JSON Lines."""
    written = [d for d in documents if d.text]

    def write(folder: Path) -> None:
        for document in written:
            text = document.page if pages else document.text
            (folder / file_name(document.id, pages)).write_text(text, encoding="utf-8")

    names = [file_name(d.id, pages) for d in written]
    with synced_folder_index(settings, names, write, embedder=embedder) as scoped:
        yield scoped


@contextmanager
def synced_folder_index(
    settings: Settings,
    names: Sequence[str],
    write: Callable[[Path], None],
    *,
    embedder: Embedder | None = None,
    what: str = "files",
) -> Iterator[Settings]:
    """The files ``write`` puts in a fresh folder (``names``: their paths in it) synced by ``retrieval
    sync``'s own function into a fresh alias and bucket; the handlers serve it until the block ends, and
    then the index, the objects and the files' statuses are removed. An ``EvalLoadError`` names a file
    that failed; ``what`` names the files in its progress and errors."""
    from retrieval_core import bootstrap
    from retrieval_core.adapters import s3_objects
    from retrieval_core.adapters.opensearch.client import shared_client

    from ..cli.ingest import DEFAULT_BUCKET

    scoped = settings.model_copy(
        update={"opensearch_alias": f"{ALIAS_PREFIX}{uuid.uuid4().hex[:8]}", "ingest_queue_url": None}
    )
    client = shared_client(scoped)
    bucket = os.environ.get("RETRIEVAL_INGEST_BUCKET", DEFAULT_BUCKET)
    keys = [f"contexts/{CONTEXT_ID}/{name}" for name in names]
    _forget(scoped, keys)  # a run that crashed left statuses saying these files are indexed already
    try:
        overrides: dict[str, Any] = {} if embedder is None else {"embedder": embedder}
        with bootstrap.use(bootstrap.Container(scoped, overrides=overrides)):
            s3_objects.s3_client.cache_clear()
            _synced(write, len(keys), what)
            yield scoped
    finally:
        _delete_indices(client, scoped)
        _delete_objects(bucket, keys)
        _forget(scoped, keys)


def _synced(write: Callable[[Path], None], count: int, what: str) -> None:
    """The files ``write`` puts in a fresh folder synced into the current container's context, as
    ``retrieval sync`` syncs a folder; an ``EvalLoadError`` names a file that failed."""
    from ..cli.progress import Progress
    from ..cli.sync import sync

    with tempfile.TemporaryDirectory(prefix="eval-as-files-") as folder_name:
        folder = Path(folder_name)
        write(folder)
        bar = Progress(count, label=f"syncing {what}", unit="files")
        try:
            report = sync(folder, CONTEXT_ID, delete=False, progress=bar.update)
        finally:
            bar.close()
    failed = [(entry["key"], entry["reason"]) for entry in report if entry["status"] == "failed"]
    if failed:
        raise EvalLoadError(f"{len(failed)} {what} failed, e.g. {failed[0]}")


def _forget(settings: Settings, keys: list[str]) -> None:
    """Remove the files' statuses (the next run indexes them afresh into its own alias)."""
    from retrieval_core.adapters.dynamodb_client import dynamodb_client

    client = dynamodb_client(settings)
    prefix = f"contexts/{CONTEXT_ID}/"
    for start in range(0, len(keys), 25):
        requests = [
            {"DeleteRequest": {"Key": {"pk": {"S": CONTEXT_ID}, "sk": {"S": key.removeprefix(prefix)}}}}
            for key in keys[start : start + 25]
        ]
        client.batch_write_item(RequestItems={settings.documents_table: requests})


def _delete_objects(bucket: str, keys: list[str]) -> None:
    import boto3

    s3 = boto3.client("s3")
    for start in range(0, len(keys), 1000):
        batch = [{"Key": key} for key in keys[start : start + 1000]]
        s3.delete_objects(Bucket=bucket, Delete={"Objects": batch, "Quiet": True})
