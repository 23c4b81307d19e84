"""``retrieval sync FOLDER --context acme [--delete] [--json]``: mirror a folder (recursively) into the
local ingest bucket under ``contexts/acme/`` and run the ingest function on each S3 event, as a deployed
stack's notifications would: new and changed files are indexed, unchanged ones (same bytes, the bucket's
ETag) are not uploaded again, and with ``--delete`` objects no longer in the folder are removed (an
``ObjectRemoved`` event each). Sidecars (``<file>.metadata.json``) go first, so their file is read with
them. Prints each file's status (files of other types ``skipped``, with the reason), chunk count and
reason; exits 1 when any file failed (a skip is not a failure)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .folder_files import (
    FolderFile,
    OversizedFileError,
    Refusal,
    UnsafePathError,
    count_files,
    folder_files,
    printable,
    size_bound,
)
from .ingest import DEFAULT_BUCKET, s3_event, sequencer, upload

if TYPE_CHECKING:
    from retrieval_core.documents.expected_pages import ExpectedPages
    from retrieval_core.documents.sources import DocumentSources, Placement
    from retrieval_core.documents.status import DocumentStatus
    from retrieval_core.ingest.ledger import Batch

SIDECAR = ".metadata.json"
STATUS_PAGE = 1000
TITLES_PROGRESS = 100
"""The pre-pass tells its progress every this many files."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="The folder to mirror (every file below it).")
    parser.add_argument("--context", required=True, help="The context: keys go under contexts/<it>/.")
    parser.add_argument("--delete", action="store_true", help="Remove objects the folder no longer has.")
    parser.add_argument(
        "--base-url",
        help="Where the folder is published (https://host/docs/): each hit's location.url is then the "
        "file's page there, opened at its section's anchor. Without it, hits link to the local files.",
    )
    parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.folder.is_dir():
        print(f"retrieval sync: no such folder: {args.folder}", file=sys.stderr)
        return 2
    from retrieval_core.context import CONTEXT_ID_PATTERN

    from .environment import use_local_stack_env

    if not CONTEXT_ID_PATTERN.fullmatch(args.context):
        print(f"retrieval sync: --context {printable(args.context)} is not a context id", file=sys.stderr)
        return 2
    use_local_stack_env()
    from pydantic import ValidationError

    from .progress import Progress

    try:
        publish(args.context, args.folder, args.base_url)
    except ValidationError as error:
        print(
            f"retrieval sync: --base-url {printable(args.base_url)}: {error.errors()[0]['msg']}",
            file=sys.stderr,
        )
        return 2

    files = count_files(args.folder, lambda key: not key.endswith(SIDECAR))  # walked as the sync walks
    reading = Progress(files, label="reading titles", unit="files", quiet=args.json)  # the pre-pass
    bars = [reading]

    def syncing(done: int) -> None:
        if bars[-1] is reading:
            reading.close()
            bars.append(Progress(files, label="syncing", unit="files", quiet=args.json))
        bars[-1].update(done)

    try:
        report = sync(args.folder, args.context, delete=args.delete, progress=syncing, reading=reading.update)
    except Exception as error:  # the bucket or the stack, not a file: one line, not a traceback
        print(f"retrieval sync: stopped: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
        return 3
    finally:
        bars[-1].close()
    if args.json:
        print(json.dumps({"files": report}, indent=2))
    else:
        print(render(report))
    return 1 if any(entry["status"] == "failed" for entry in report) else 0


def render(report: list[dict[str, Any]]) -> str:
    """One line per file, then the counts; a note many files share (an undeclared typed sidecar key)
    is said once at the end, not on every file's line."""
    lines, notes = [], list[str]()
    for entry in report:
        parts = (entry["reason"] or "").split("; ")
        shared = [part for part in parts if part.startswith(SHARED_NOTE)]
        notes += [note for note in shared if note not in notes]
        reason = "; ".join(part for part in parts if part and part not in shared)
        lines.append(
            f"{entry['status']:<9} {entry['chunks']:>5}  {entry['key']}" + (f"  {reason}" if reason else "")
        )
    unread = [entry for entry in report if entry.get("read") is False]
    summary = _counted([entry for entry in report if entry.get("read") is not False]) or "nothing to sync"
    if unread:  # no status is recorded for them: counted apart, the totals match the documents' list
        summary += f"; not read: {_counted(unread)} (links, special files, names S3 cannot take)"
    lines.append(summary)
    return "\n".join([*lines, *(f"note: {note}" for note in notes)])


def _counted(entries: list[dict[str, Any]]) -> str:
    """``3 indexed, 1 skipped``: the entries by status."""
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry["status"]] = counts.get(entry["status"], 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


SHARED_NOTE = "typed sidecar values"
SOURCES_VARIABLE = "RETRIEVAL_DOCUMENT_SOURCES"


def publish(context_id: str, folder: Path, base_url: str | None) -> None:
    """Tell this process's ingest function where the folder's files open (``published_sources``); a
    ``ValidationError`` names a base URL that is no http(s) or file URL."""
    from retrieval_core import bootstrap

    current = os.environ.get(SOURCES_VARIABLE) or "{}"
    os.environ[SOURCES_VARIABLE] = json.dumps(published_sources(current, context_id, folder, base_url))
    bootstrap.reset()  # the functions' settings are read again, with it


def published_sources(current: str, context_id: str, folder: Path, base_url: str | None) -> dict[str, Any]:
    """The deployed ingest's per-prefix setting (``RETRIEVAL_DOCUMENT_SOURCES``, docs/DOCUMENTS.md) as
    ``current`` has it, with the context's prefix placed at the folder: the files' local paths, and their
    links at ``base_url`` (where the folder is published), else at the folder itself (``file://``)."""
    from retrieval_core.documents.sources import DocumentSources, SourceFolder

    sources = DocumentSources.model_validate_json(current)
    root = folder.resolve()
    here = SourceFolder(url=base_url or f"{root.as_uri()}/", folder=str(root))
    prefixes = {**sources.prefixes, f"contexts/{context_id}/": here}
    return DocumentSources(prefixes=prefixes).model_dump(mode="json", exclude_none=True)


def sync(
    folder: Path,
    context_id: str,
    *,
    delete: bool,
    progress: Callable[[int], None] | None = None,
    reading: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """The per-file report: each document's status after its event, in key order. ``progress`` is told
    how many documents (sidecars aside) were handled so far, after each; ``reading``, before them, how
    many the pre-pass read (the titles of the pages it will index: ``sync_titles``). The folder's files are
    committed a batch at a time (``ingest.ledger.Batch``: their records, chunks and rows share round
    trips; a file's final status is written only after its chunks) and made searchable when a later
    one's back-links need them, and at the end, not after each (docs/PERFORMANCE.md, "A sync at scale").
    A batch commits while the next is read, parsed and embedded (``ahead``): the embedder and the
    stores' round trips overlap, one commit at a time and in order."""
    from retrieval_core.bootstrap import container
    from retrieval_core.documents.expected_pages import ExpectedPages

    statuses = _statuses(context_id)  # every record, read once: the batch keeps them as it writes
    expected = ExpectedPages(context_id)  # the pages it will index: filled before the first is sent
    files = container().document_files
    with files.batched(records={context_id: statuses}, ahead=True, expected=expected) as batch:
        return _synced(
            folder,
            context_id,
            statuses,
            delete=delete,
            progress=progress,
            reading=reading,
            batch=batch,
            expected=expected,
        )


def _synced(
    folder: Path,
    context_id: str,
    statuses: dict[str, DocumentStatus],
    *,
    delete: bool,
    progress: Callable[[int], None] | None,
    reading: Callable[[int], None] | None,
    batch: Batch,
    expected: ExpectedPages,
) -> list[dict[str, Any]]:
    import boto3

    from .lambda_runtime import invoke

    bucket = os.environ.get("RETRIEVAL_INGEST_BUCKET", DEFAULT_BUCKET)
    s3 = boto3.client("s3")
    prefix = f"contexts/{context_id}/"
    stored = _stored_etags(s3, bucket, prefix)
    with _folder(folder, prefix, bucket, stored) as (local, refused):
        # Sidecars first: their file is then read with them (and its own event re-applies them anyway).
        order = sorted(local, key=lambda key: (not key.endswith(SIDECAR), key))
        sends = _sends(context_id, statuses, stored)
        expected.expect(_titles(local, order, sends, reading))
        results: dict[str, dict[str, Any]] = {}
        files_done = 0  # counted as they go: summing the results at each file is quadratic in the folder
        for key in order:
            try:
                body = local[key].read(size_bound(key))  # its size first: over the bound, never read
                if not sends(key, body):
                    results[key] = _unsent(results, key, prefix, statuses.get(key[len(prefix) :]))
                else:
                    _sent(results, key, prefix, invoke("ingest", upload(body, key)), batch)
            except OversizedFileError as oversized:  # not read, so not sent: no older copy may answer for it
                if key in stored:
                    _remove(s3, bucket, key)
                results[key] = _failed_alone(key[len(prefix) :], oversized)
            except Exception as error:  # one file fails alone, with a reason; the sync goes on
                results[key] = _failed_alone(key[len(prefix) :], error)
            if not key.endswith(SIDECAR):
                files_done += 1
                if progress is not None:
                    progress(files_done)
        if delete:
            for key in sorted(set(stored) - set(local)):
                _sent(results, key, prefix, _remove(s3, bucket, key), batch)
        batch.flush()
    _committed(results, prefix, batch.finished())
    documents = [_with_sidecar(results, key) for key in results if not key.endswith(SIDECAR)]
    return sorted(documents + [refusal.entry() for refusal in refused], key=lambda entry: entry["key"])


def _sends(
    context_id: str, statuses: Mapping[str, DocumentStatus], stored: Mapping[str, str]
) -> Callable[[str, bytes], bool]:
    """Whether a file goes to the ingest: its bytes (the bucket's ETag) or its record not settled."""
    prefix = f"contexts/{context_id}/"
    generation = _generation(context_id) if stored else None
    places = _places()

    def sends(key: str, body: bytes) -> bool:
        status = statuses.get(key[len(prefix) :])
        same = stored.get(key) == hashlib.md5(body, usedforsecurity=False).hexdigest()
        return not (same and settled(key, body, status, places.place(key), generation))

    return sends


def _titles(
    local: Mapping[str, FolderFile],
    order: list[str],
    sends: Callable[[str, bytes], bool],
    reading: Callable[[int], None] | None,
) -> dict[str, str]:
    """The pre-pass: the page titles of the files the sync will send, in its order (a file it cannot
    read is left to the sync itself, which reports it); ``reading`` told the files read so far, and
    all of them once the pre-pass is over."""
    from .sync_titles import expected_titles

    documents = [key for key in order if not key.endswith(SIDECAR)]

    def sent() -> Iterator[tuple[str, bytes]]:
        for done, key in enumerate(documents, 1):
            if reading is not None and done % TITLES_PROGRESS == 0:
                reading(done)
            try:
                body = local[key].read(size_bound(key))
            except Exception:
                continue
            if sends(key, body):
                yield key, body

    titles = expected_titles(sent())
    if reading is not None:
        reading(len(documents))
    return titles


@contextmanager
def _folder(
    folder: Path, prefix: str, bucket: str, stored: Mapping[str, str]
) -> Iterator[tuple[dict[str, FolderFile], list[Refusal]]]:
    """The folder's files by key (no link followed, no name S3 cannot take) and its refusals; inside the
    block, the object store knows which sidecars neither the folder nor the bucket holds: a file's event
    reads its sidecar, and a read of one of those then costs no request."""
    from retrieval_core.bootstrap import container

    local, refused = folder_files(folder, prefix)
    with container().objects.known_absent(bucket, _without_sidecars(local, stored)):
        yield local, refused


def _without_sidecars(local: Mapping[str, object], stored: Mapping[str, str]) -> list[str]:
    """The sidecar keys of the folder's files that neither the folder nor the bucket holds (the sync is
    the prefix's only writer while it runs, and it uploads only the folder's keys)."""
    sidecars = (key + SIDECAR for key in local if not key.endswith(SIDECAR))
    return [sidecar for sidecar in sidecars if sidecar not in local and sidecar not in stored]


def _unsent(
    results: dict[str, dict[str, Any]], key: str, prefix: str, status: DocumentStatus | None
) -> dict[str, Any]:
    """The line of a file with the same bytes, done with: not uploaded, so no event at all (its
    sidecar's event, when this sync sent one, says what became of it)."""
    by_sidecar, relative = results.get(key + SIDECAR, {}), key[len(prefix) :]
    return by_sidecar if by_sidecar.get("key") == relative else _unchanged(relative, status)


def _sent(
    results: dict[str, dict[str, Any]], key: str, prefix: str, response: dict[str, Any], batch: Batch
) -> None:
    """The line of a file whose event ran: what its batch committed since comes first (lines of
    earlier events), then this event's own (``pending`` while its batch is queued)."""
    _committed(results, prefix, batch.finished())
    _record(results, key, prefix, response)


def _committed(
    results: dict[str, dict[str, Any]], prefix: str, finished: list[tuple[str, DocumentStatus | Exception]]
) -> None:
    """The report lines of files whose event queued them (``pending``) replaced by what their batch's
    commit made of them: the final status, or why the commit failed (their records stay ``pending``,
    so the next sync sends them again)."""
    for key, final in finished:
        relative = key[len(prefix) :]
        line = (
            _failed_alone(relative, final)
            if isinstance(final, Exception)
            else {name: getattr(final, name) for name in ("key", "status", "chunks", "reason")}
        )
        # Its line is under its own key, or its sidecar's when that event applied it: looked up, not
        # searched for, so a commit costs its files and not the folder's (a scan made the sync quadratic).
        for entry in (results.get(key), results.get(key + SIDECAR)):
            if entry is not None and entry["key"] == relative and entry["status"] == "pending":
                entry.update(line)


def _remove(s3: Any, bucket: str, key: str) -> dict[str, Any]:
    """Delete the bucket's object and run the ingest function on its ``ObjectRemoved`` event."""
    from .lambda_runtime import invoke

    s3.delete_object(Bucket=bucket, Key=key)
    event = s3_event(bucket, key, size=0, etag="", version_id=None)
    event["Records"][0]["eventName"] = "ObjectRemoved:Delete"
    event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
    return invoke("ingest", event)


def _failed_alone(key: str, error: Exception) -> dict[str, Any]:
    """The report line of a file whose read, upload or event raised: its reason, not a traceback."""
    if isinstance(error, UnsafePathError):  # refused before any upload, as a walk's refusal is
        return {
            "key": printable(key),
            "status": "skipped",
            "chunks": 0,
            "reason": error.reason,
            "read": False,
        }
    reason = f"could not be synced ({type(error).__name__}: {str(error)[:200]})"
    return {"key": printable(key), "status": "failed", "chunks": 0, "reason": reason}


def _stored_etags(s3: Any, bucket: str, prefix: str) -> dict[str, str]:
    etags: dict[str, str] = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for entry in page.get("Contents", []):
            etags[entry["Key"]] = entry["ETag"].strip('"')
    return etags


def _statuses(context_id: str) -> dict[str, DocumentStatus]:
    """Every file status of the context, a page of them per read (not one read per unchanged file)."""
    from retrieval_core.bootstrap import container

    store = container().document_statuses
    statuses: dict[str, DocumentStatus] = {}
    after: str | None = None
    while True:
        page = store.page(context_id, "", limit=STATUS_PAGE, after=after)
        statuses.update((status.key, status) for status in page.documents)
        if page.next_token is None:
            return statuses
        after = page.next_token


def _with_sidecar(results: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    """A file whose bytes are unchanged but whose sidecar's event re-applied its metadata is that
    event's result (``updated``), not ``unchanged``."""
    result, by_sidecar = results[key], results.get(key + SIDECAR)
    if result["status"] == "unchanged" and by_sidecar is not None and by_sidecar["key"] == result["key"]:
        return by_sidecar
    return result


DOCUMENTS_DONE = frozenset({"indexed", "updated", "unchanged", "failed", "skipped"})
LINES_DONE = frozenset({"indexed", "failed"})
"""The recorded statuses that leave the same bytes alone (``lines_ledger`` writes no others when done)."""


def settled(
    key: str,
    body: bytes,
    status: DocumentStatus | None,
    place: Placement | None = None,
    generation: str | None = None,
) -> bool:
    """Whether the bucket's copy of a file needs no event: a document only when its recorded status is
    indexed (or failed, or skipped as only navigation) for exactly these bytes, placed where the file now
    opens (``place``: a new base URL or folder links its chunks anew), so a file left ``pending`` by a crash
    or a kill, or never recorded at all, is sent again, and so is one recorded in an index that is no
    longer the context's (``generation``: the index now; restored, rebuilt, lost or a new node). A JSON
    Lines object likewise only when its record (``ingest.lines_ledger``) is indexed or failed for these
    bytes (a failure of the backends vouches for none); sidecars by their ETag alone."""
    from retrieval_core.documents.formats import format_of, is_lines
    from retrieval_core.documents.status import is_stale

    lines = is_lines(key)
    if format_of(key) is None and not lines:
        return True
    return (
        status is not None
        and status.status in (LINES_DONE if lines else DOCUMENTS_DONE)
        and not is_stale(status, generation)
        and status.content_hash == hashlib.sha256(body).hexdigest()
        and (lines or place is None or status.chunking is None or status.chunking.endswith(place.fingerprint))
    )


def _generation(context_id: str) -> str | None:
    """The generation of the context's index now: a file recorded in another is sent again."""
    from retrieval_core.bootstrap import container

    return container().index_generation(context_id)


def _places() -> DocumentSources:
    """Where the ingest function places files (``publish``, or the deployment's own setting)."""
    from retrieval_core.bootstrap import container
    from retrieval_core.documents.sources import DocumentSources

    return DocumentSources.model_validate(container().settings.document_sources)


def _unchanged(key: str, status: DocumentStatus | None) -> dict[str, Any]:
    if status is not None and status.status in {"failed", "skipped"}:  # the same bytes fare as they did
        return {"key": status.key, "status": status.status, "chunks": 0, "reason": status.reason}
    chunks = status.chunks if status is not None else 0
    return {"key": key, "status": "unchanged", "chunks": chunks, "reason": None}


def _record(results: dict[str, dict[str, Any]], key: str, prefix: str, response: dict[str, Any]) -> None:
    if response.get("statusCode") != 200:
        reason = json.dumps(response.get("body"))[:300]
        results[key] = {"key": key[len(prefix) :], "status": "failed", "chunks": 0, "reason": reason}
        return
    (summary,) = response["body"]["objects"]
    # A document's status, or a JSON Lines object's record (an event that applied neither says nothing).
    document = summary.get("document") or summary.get("lines_record")
    if document is not None:
        results[key] = {name: document[name] for name in ("key", "status", "chunks", "reason")}
