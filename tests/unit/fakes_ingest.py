"""In-memory stand-ins for the ingest use case's ports (``ingest.ports``): an object store, a queue
that records what it is sent, a loader that loads nothing but reports as told, and an item sink that
keeps what a document handed it."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

from retrieval_core.loading.lines import OversizedLine
from retrieval_core.loading.loader import LoadReport
from retrieval_core.loading.parse import Delete, LineError, Upsert
from retrieval_core.models.ingest import ObjectRef, PartTask


class MemoryObjects:
    def __init__(self) -> None:
        self.blobs: dict[tuple[str, str], bytes] = {}
        self.documents: dict[tuple[str, str], dict[str, Any]] = {}

    def identify(self, ref: ObjectRef) -> ObjectRef:
        return ObjectRef(ref.bucket, ref.key, "v1", '"etag"')

    def open(self, ref: ObjectRef, start: int = 0, end: int | None = None) -> BinaryIO:
        return io.BytesIO(self.blobs[(ref.bucket, ref.key)][start:end])

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        data = self.blobs.get((ref.bucket, ref.key))
        return None if data is None else data[: limit + 1]

    def read_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        return self.documents.get((bucket, key))

    def write_json(self, bucket: str, key: str, document: dict[str, Any]) -> None:
        self.documents[(bucket, key)] = document

    def write_bytes(self, bucket: str, key: str, data: bytes) -> None:
        self.blobs[(bucket, key)] = data

    def upload(self, bucket: str, key: str, body: bytes) -> ObjectRef:
        self.blobs[(bucket, key)] = body
        return ObjectRef(bucket, key, "v1", '"etag"')

    @contextmanager
    def known_absent(self, bucket: str, keys: Iterable[str]) -> Iterator[None]:
        assert not any((bucket, key) in self.blobs for key in keys), "told absent, but there"
        yield


class RecordingQueue:
    def __init__(self) -> None:
        self.tasks: list[PartTask] = []

    def send(self, tasks: Sequence[PartTask]) -> None:
        self.tasks += tasks


class ScriptedLoader:
    """Loads nothing; reports each non-blank line as loaded, except lines it is told to fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[bytes | OversizedLine], str | None]] = []
        self.unwritten_lines: set[int] = set()

    def load_lines(
        self, lines: Iterable[bytes | OversizedLine], *, context_id: str | None = None, first_line: int = 1
    ) -> LoadReport:
        kept = list(lines)  # parts arrive as a stream of lines
        self.calls.append((first_line, kept, context_id))
        numbered = list(enumerate(kept, start=first_line))
        errors = [LineError(n, "(line)", "not valid JSON") for n, line in numbered if line == b"bad"]
        unwritten = [n for n, line in numbered if line != b"bad" and n in self.unwritten_lines]
        return LoadReport(
            loaded=len(kept) - len(errors) - len(unwritten),
            errors=errors,
            unwritten=[f"acme:p-{n}" for n in unwritten],
        )


class RecordingSink:
    """Keeps every load's entries, in order (``loads``); reports each item loaded, each delete applied."""

    def __init__(self) -> None:
        self.loads: list[list[Upsert | Delete]] = []
        self.refreshed: list[set[str]] = []
        """The contexts each refresh named, in order."""

    def load(self, entries: Iterable[Upsert | Delete], *, refresh: bool = True) -> LoadReport:
        kept = list(entries)
        self.loads.append(kept)
        if refresh:
            self.refreshed.append(
                {e.context_id if isinstance(e, Delete) else e.item.context_id for e in kept}
            )
        deletes = sum(isinstance(entry, Delete) for entry in kept)
        return LoadReport(loaded=len(kept) - deletes, deleted=deletes)

    def refresh(self, context_ids: Iterable[str]) -> None:
        self.refreshed.append(set(context_ids))
