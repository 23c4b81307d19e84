"""Reading an object as lines: plan it into parts of whole lines in one streaming pass, read a part back.

A part is bounded by bytes as well as lines: it ends after ``part_lines`` lines once it holds at least
``part_min_bytes`` (so blank or tiny lines cannot multiply parts: an object has at most
``size / part_min_bytes`` of them), and after ``part_max_bytes`` whatever its line count. Planning stops
at the first object limit it passes (stored size, decompressed size, decompression ratio) and the
object is rejected with the reason, after reading no more than the limit.

No part re-reads the object from its start: a plain object's part is one ranged GET of its bytes; a gzip
object (which cannot be entered mid-stream) is split during planning into plain part objects, one per
part, which the parts read back. Offsets are in the decoded content; lines split on ``\\n`` only.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, cast

from ..loading.lines import OversizedLine, read_lines
from ..models.limits import LIMITS, StorageLimits
from .tasks import Part

GZIP_MAGIC = b"\x1f\x8b"
RATIO_FLOOR_BYTES = 1 << 20
"""The decompression ratio is judged once this much was decompressed (tiny objects compress oddly)."""
OVERSIZED_MARK = b"\x00"
"""In a part object, a line too large to keep is written as this byte and its size: valid JSON never
starts with NUL, and the reader turns it back into an ``OversizedLine``."""

WritePart = Callable[[int, bytes], None]


@dataclass(frozen=True, slots=True)
class Plan:
    gzip: bool
    lines: int
    parts: list[Part] = field(default_factory=list)
    refused: str | None = None
    """Why the object is not loaded at all (a limit it passes), or None."""


def plan_parts(
    raw: BinaryIO, part_lines: int, *, write_part: WritePart | None = None, limits: StorageLimits = LIMITS
) -> Plan:
    """Stream the object once, cutting it into parts; a gzip object's parts go to ``write_part``."""
    stored = _Counted(raw)
    head = stored.read(2)
    compressed = head == GZIP_MAGIC
    decoded = _Counted(_decoded(stored, head, compressed), lambda count: _check(stored.count, count, limits))
    planner = _Planner(part_lines, limits, write_part if compressed else None)
    try:
        for line in read_lines(cast(BinaryIO, decoded), limits.line_bytes):
            planner.add(line)
    except _ObjectRefused as refused:
        return Plan(gzip=compressed, lines=0, refused=str(refused))
    except (OSError, EOFError, zlib.error) as error:
        return Plan(gzip=compressed, lines=0, refused=f"not a readable gzip stream ({type(error).__name__})")
    planner.finish(decoded.count)
    return Plan(gzip=compressed, lines=planner.lines, parts=planner.parts)


def read_part(data: BinaryIO, *, from_part_object: bool) -> Iterator[bytes | OversizedLine]:
    """The lines of one part (a ranged read of a plain object, or a gzip object's part object)."""
    for line in read_lines(data):
        if from_part_object and isinstance(line, bytes) and line.startswith(OVERSIZED_MARK):
            yield OversizedLine(int(line[1:]))
        else:
            yield line


class _ObjectRefused(Exception):
    pass


def _check(stored: int, decoded: int, limits: StorageLimits) -> None:
    if stored > limits.object_bytes:
        raise _ObjectRefused(f"the object holds more than {limits.object_bytes} bytes")
    if decoded > limits.decompressed_bytes:
        raise _ObjectRefused(f"the object decompresses to more than {limits.decompressed_bytes} bytes")
    if decoded > RATIO_FLOOR_BYTES and decoded > limits.decompression_ratio * stored:
        raise _ObjectRefused(
            f"the object decompresses to more than {limits.decompression_ratio} times its size"
        )


class _Planner:
    def __init__(self, part_lines: int, limits: StorageLimits, write_part: WritePart | None) -> None:
        self._part_lines = part_lines
        self._limits = limits
        self._write = write_part
        self._buffer = bytearray()
        self.parts: list[Part] = []
        self.lines = 0
        self._offset = self._start = self._first = self._in_part = 0

    def add(self, line: bytes | OversizedLine) -> None:
        self.lines += 1
        self._in_part += 1
        size = line.size if isinstance(line, OversizedLine) else len(line)
        self._offset += size + 1
        if self._write is not None:
            self._buffer += OVERSIZED_MARK + str(size).encode() if isinstance(line, OversizedLine) else line
            self._buffer += b"\n"
        held = self._offset - self._start
        if (self._in_part >= self._part_lines and held >= self._limits.part_min_bytes) or (
            held >= self._limits.part_max_bytes
        ):
            self._cut(self._offset)

    def finish(self, decoded_bytes: int) -> None:
        if self._in_part:
            self._cut(decoded_bytes)  # the last line may lack its newline

    def _cut(self, end: int) -> None:
        index = len(self.parts)
        self.parts.append(
            Part(index=index, first_line=self._first + 1, lines=self._in_part, start=self._start, end=end)
        )
        if self._write is not None:
            self._write(index, bytes(self._buffer))
            self._buffer.clear()
        self._first += self._in_part
        self._start, self._in_part = end, 0


class _Counted:
    """A reader that counts the bytes it handed out (and checks the count after every read, so a limit
    stops the pass within one read of being passed, even inside one endless line)."""

    def __init__(self, raw: BinaryIO, check: Callable[[int], None] | None = None) -> None:
        self._raw = raw
        self._check = check
        self.count = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self._raw.read(size)
        self.count += len(data)
        if self._check is not None:
            self._check(self.count)
        return data


def _decoded(stored: _Counted, head: bytes, compressed: bool) -> BinaryIO:
    """The decoded content, given that ``head`` was already read from ``stored``."""
    prefixed = cast(BinaryIO, _Prefixed(head, stored))
    return cast(BinaryIO, gzip.GzipFile(fileobj=prefixed, mode="rb")) if compressed else prefixed


class _Prefixed:
    """``raw`` with ``head`` put back in front (GzipFile needs the magic bytes it was robbed of)."""

    def __init__(self, head: bytes, raw: _Counted) -> None:
        self._head = head
        self._raw = raw

    def read(self, size: int = -1, /) -> bytes:
        if self._head:
            head, self._head = self._head, b""
            if size < 0:
                return head + self._raw.read()
            return head + self._raw.read(max(size - len(head), 0))
        return self._raw.read(size)
