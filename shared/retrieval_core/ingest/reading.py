"""Reading an object as lines: plan it into parts of whole lines in one streaming pass, read a part back.

Offsets are in the decoded content. A plain object's part is one ranged GET; a gzip object cannot be
entered mid-stream, so its part is read by decompressing from the start and skipping (fast next to
embedding; docs/INGEST.md has the numbers). Lines split on ``\\n`` only, numbered from 1.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, cast

from .tasks import Part

CHUNK_BYTES = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class Plan:
    gzip: bool
    lines: int
    parts: list[Part]


def plan_parts(raw: BinaryIO, part_lines: int) -> Plan:
    """Stream the object once, cutting it after every ``part_lines`` lines."""
    head = raw.read(2)
    compressed = head == GZIP_MAGIC
    read = _reader(raw, head, compressed)
    parts: list[Part] = []
    offset = part_start = lines_in_part = newlines = 0
    last_byte = b""
    while chunk := read(CHUNK_BYTES):
        position = 0
        while True:
            needed = part_lines - lines_in_part
            available = chunk.count(b"\n", position)
            if available < needed:
                lines_in_part += available
                newlines += available
                break
            for _ in range(needed):
                position = chunk.index(b"\n", position) + 1
            newlines += needed
            end = offset + position
            parts.append(_part(len(parts), part_lines, part_start, end, part_lines))
            part_start, lines_in_part = end, 0
        offset += len(chunk)
        last_byte = chunk[-1:]
    if offset > part_start:
        trailing = 1 if last_byte != b"\n" else 0
        parts.append(_part(len(parts), part_lines, part_start, offset, lines_in_part + trailing))
    total = newlines + (1 if offset and last_byte != b"\n" else 0)
    return Plan(gzip=compressed, lines=total, parts=parts)


def part_lines_of(data: bytes) -> list[bytes]:
    """The lines of a part's bytes (a final newline ends the last line, it does not start another)."""
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def read_gzip_part(raw: BinaryIO, part: Part) -> bytes:
    """Bytes ``[start, end)`` of a gzip object's decompressed content."""
    stream = gzip.GzipFile(fileobj=raw, mode="rb")
    to_skip = part.start
    while to_skip:
        skipped = len(stream.read(min(to_skip, CHUNK_BYTES)))
        if not skipped:
            break
        to_skip -= skipped
    return stream.read(part.end - part.start)


def _part(index: int, part_lines: int, start: int, end: int, lines: int) -> Part:
    return Part(index=index, first_line=index * part_lines + 1, lines=lines, start=start, end=end)


def _reader(raw: BinaryIO, head: bytes, compressed: bool) -> Callable[[int], bytes]:
    """A ``read(n)`` over the decoded content, given that ``head`` was already read from ``raw``."""
    if compressed:
        stream = gzip.GzipFile(fileobj=cast(BinaryIO, _Prefixed(head, raw)), mode="rb")
        return stream.read
    pending = [head]

    def read(size: int) -> bytes:
        if pending:
            return pending.pop() + raw.read(size)
        return raw.read(size)

    return read


class _Prefixed:
    """``raw`` with ``head`` put back in front (GzipFile needs the magic bytes it was robbed of)."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self._head = head
        self._raw = raw

    def read(self, size: int = -1, /) -> bytes:
        if self._head:
            head, self._head = self._head, b""
            if size < 0:
                return head + self._raw.read()
            return head + self._raw.read(max(size - len(head), 0))
        return self._raw.read(size)
