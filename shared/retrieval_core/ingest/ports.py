"""What ingestion needs from the outside: an object store and a queue for parts of large objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO, Protocol

from .objects import ObjectRef
from .tasks import PartTask


class ObjectStore(Protocol):
    def identify(self, ref: ObjectRef) -> ObjectRef:
        """``ref`` pinned to the object's current version and ETag."""
        ...

    def open(self, ref: ObjectRef, start: int = 0, end: int | None = None) -> BinaryIO:
        """A readable stream of the object's bytes ``[start, end)`` (``end`` None: to the end)."""
        ...

    def read_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        """The JSON document at ``key``, or None when there is none."""
        ...

    def write_json(self, bucket: str, key: str, document: dict[str, Any]) -> None: ...

    def write_bytes(self, bucket: str, key: str, data: bytes) -> None: ...


class PartQueue(Protocol):
    def send(self, tasks: Sequence[PartTask]) -> None:
        """Queue the parts of one object so they run one after another, in order."""
        ...
