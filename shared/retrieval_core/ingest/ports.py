"""What ingestion needs from the outside: an object store, a queue for parts of large objects, a loader
for the lines of each part, and a sink for the items a document becomes (both ``loading.Loader``,
whatever backends it writes to)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, BinaryIO, Protocol

from ..loading.lines import OversizedLine
from ..loading.loader import LoadReport
from ..loading.parse import Delete, Upsert
from ..models.ingest import ObjectRef, PartTask


class ObjectStore(Protocol):
    def identify(self, ref: ObjectRef) -> ObjectRef:
        """``ref`` pinned to the object's current version and ETag."""
        ...

    def open(self, ref: ObjectRef, start: int = 0, end: int | None = None) -> BinaryIO:
        """A readable stream of the object's bytes ``[start, end)`` (``end`` None: to the end)."""
        ...

    def read_bytes(self, ref: ObjectRef, limit: int) -> bytes | None:
        """At most ``limit + 1`` bytes of the object (its current version when ``ref`` names none), so a
        caller sees that it passes ``limit`` without reading it all; None when there is no such object."""
        ...

    def read_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        """The JSON document at ``key``, or None when there is none."""
        ...

    def write_json(self, bucket: str, key: str, document: dict[str, Any]) -> None: ...

    def write_bytes(self, bucket: str, key: str, data: bytes) -> None: ...

    def upload(self, bucket: str, key: str, body: bytes) -> ObjectRef:
        """Put ``body`` at ``key`` as a client would (``retrieval sync``); the reads of the version it made
        (its event's) may be answered from ``body``: the same bytes, not read back."""
        ...

    def known_absent(self, bucket: str, keys: Iterable[str]) -> AbstractContextManager[None]:
        """Inside the block, ``keys`` are not in ``bucket``, as its only writer meanwhile knows from its
        listing (a sync: the sidecars its files do not have): a read of one answers None without a
        request, until this store uploads it. After the block the store knows nothing of them: another
        writer may add them then."""
        ...


class PartQueue(Protocol):
    def send(self, tasks: Sequence[PartTask]) -> None:
        """Queue the parts of one object so they run one after another, in order."""
        ...


class LineLoader(Protocol):
    def load_lines(
        self, lines: Iterable[bytes | OversizedLine], *, context_id: str | None = None, first_line: int = 1
    ) -> LoadReport:
        """Load JSON Lines into ``context_id``, numbering them from ``first_line`` in the report."""
        ...


class ItemSink(Protocol):
    def load(self, entries: Iterable[Upsert | Delete], *, refresh: bool = True) -> LoadReport:
        """Load items built in memory and apply deletes, in order; the report names an entry that
        failed by its number (a document numbers its chunks by position). ``refresh=False`` leaves the
        writes unsearchable until a ``refresh``."""
        ...

    def refresh(self, context_ids: Iterable[str]) -> None:
        """Make what was written to these contexts searchable."""
        ...
