"""What ingestion passes between its use case and its adapters: one version of one object, and one part
of it to load (the unit of work the queue carries, a message body). Here, not in ``ingest``, so that the
object store and queue adapters need nothing of the use case."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """One version of one object. Without a version id (an unversioned bucket) the ETag pins it."""

    bucket: str
    key: str
    version_id: str | None = None
    etag: str | None = None
    sequencer: str | None = None
    """S3's order of events on this key (a hex number): a later event has a greater one."""

    @property
    def revision(self) -> str:
        """What identifies this upload among others of the same key: the version, else the content."""
        return self.version_id or (self.etag or "unversioned").strip('"')


class Part(BaseModel):
    """Lines ``first_line ..`` of an object: bytes ``[start, end)`` of its (decompressed) content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    first_line: int = Field(ge=1)
    lines: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=1)


class PartTask(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    bucket: str = Field(min_length=1)
    key: str = Field(min_length=1)
    version_id: str | None = None
    etag: str | None = None
    gzip: bool = False
    parts: int = Field(ge=1)
    total_lines: int = Field(ge=0)
    part: Part

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.bucket, self.key, self.version_id, self.etag)

    @property
    def is_last(self) -> bool:
        return self.part.index == self.parts - 1
