"""A file's chunks as loadable items: kind ``document``, an id naming the file and the position
(``acme:doc/<key>#0003``), grounded in ``s3://bucket/key`` with the page, section and span, the file's
path (and its local path and link where ``documents.sources`` places it), the sidecar's
metadata, and the entities found in it. ``co_mentioned`` says which of a chunk's entities the graph
pairs into edges, as a proposition's are."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ..models.item import Item
from ..models.limits import MAX_ITEM_ID_CHARS
from ..models.page_titles import FILE_ENTITY_TYPE as FILE_ENTITY_TYPE  # re-exported: the ingest reads it here
from ..models.page_titles import SINGLE_NAME_TYPE
from ..models.vocabulary import Kind, iso
from .chunking import Chunk
from .errors import DocumentRejectedError
from .sources import NOWHERE, Placement, anchored

SECTION_SEPARATOR = " > "
LONGEST_CHUNK_SUFFIX = len("#000000")
PAIRED_NAMES = 8
"""A chunk pairs at most its first 8 names (the dictionary's come first): 56 edge rows, where a
proposition names a few entities but a 300-token chunk of prose can name thirty (870 rows)."""


def co_mentioned(item: Item) -> list[str]:
    """The entities a chunk of a file names together (its mentions but the file's own), which the graph
    pairs into edges carried by the chunk, so ``graph_walk`` and ``graph_path`` reach documents. A
    chunk of a file is a ``document`` grounded in itself at a ``uri``; any other item pairs nothing
    here. The file's mention is left out: every chunk has it (``entity`` mode reaches them all), and
    pairing it would make the file a hub joining every name in it. One-word names are left out too:
    they bridge passages in ``auto``'s walk over the index's mentions, and pairing them would spend the
    chunk's few edge rows on "Canada" and "American" before its longer names."""
    if item.kind is not Kind.DOCUMENT or not any(g.chunk_id == item.id and g.uri for g in item.grounding):
        return []
    unpaired = (FILE_ENTITY_TYPE, SINGLE_NAME_TYPE)
    named = dict.fromkeys(m.entity_id for m in item.mentions if m.type not in unpaired)
    return list(named)[:PAIRED_NAMES]


@dataclass(frozen=True, slots=True)
class FileRef:
    """One version of one file: its context, its key relative to ``contexts/<context_id>/``."""

    context_id: str
    bucket: str
    key: str
    relative_key: str
    version: str
    place: Placement = NOWHERE
    """Where the file opens besides its object (``documents.sources``): a published page, a local path."""

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.key}"

    @property
    def file_id(self) -> str:
        """``acme:doc/<relative key>``; a key too long for an id is named by its digest."""
        name = f"{self.context_id}:doc/{self.relative_key}"
        if len(name) + LONGEST_CHUNK_SUFFIX > MAX_ITEM_ID_CHARS:
            name = f"{self.context_id}:doc/sha256-{hashlib.sha256(self.relative_key.encode()).hexdigest()}"
        return name

    def chunk_id(self, position: int) -> str:
        return f"{self.file_id}#{position:04d}"


def chunk_items(
    file: FileRef,
    chunks: Sequence[Chunk],
    *,
    metadata: dict[str, Any],
    mentions: Sequence[list[dict[str, str]]],
    vectors: dict[str, list[float]],
    created_at: datetime,
) -> list[Item]:
    """One item per chunk, validated as a loaded line is (a chunk that is not a valid item raises
    ``DocumentRejectedError`` naming it). ``vectors`` holds embeddings already stored for these ids with
    the same text (a sidecar change, an unchanged chunk of an edited file): they are reused, not computed
    again."""
    items = []
    for position, chunk in enumerate(chunks):
        record = _chunk_record(file, position, chunk, {**metadata, **(chunk.metadata or {})}, created_at)
        record["mentions"] = mentions[position]
        if record["id"] in vectors:
            record["embedding"] = vectors[record["id"]]
        try:
            items.append(Item.model_validate(record))
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "(item)"
            raise DocumentRejectedError(
                f"has a chunk that is not a valid item (chunk {position}: {field}: {first['msg']})"
            ) from None
    return items


def heading_of(chunk: Chunk) -> str:
    """A chunk's heading path as its item's grounding ``section`` holds it (``Item.heading``): the one
    spelling its vector is computed and reused with."""
    return SECTION_SEPARATOR.join(chunk.section)


def _chunk_record(
    file: FileRef, position: int, chunk: Chunk, metadata: dict[str, Any], created_at: datetime
) -> dict[str, Any]:
    """The chunk's fields as an item's, grounded in its span of the file."""
    chunk_id = file.chunk_id(position)
    span: dict[str, Any] = {"chunk_id": chunk_id, "uri": file.uri, "start": chunk.start, "end": chunk.end}
    if chunk.page is not None:
        span["page"] = chunk.page
    if chunk.section:
        span["section"] = heading_of(chunk)
    if chunk.anchor:
        span["anchor"] = chunk.anchor
    span["version"] = file.version
    span["path"] = file.relative_key
    if file.place.local_path is not None:
        span["local_path"] = file.place.local_path
    if file.place.url is not None:  # opened at the chunk's section, when its heading has an anchor
        span["url"] = anchored(file.place.url, span.get("anchor"))
    if chunk.parent_text is not None:
        span["text"] = chunk.parent_text
    return {
        "id": chunk_id,
        "context_id": file.context_id,
        "kind": "document",
        "text": chunk.text,
        "created_at": iso(created_at),
        "grounding": [span],
        "metadata": metadata,
    }
