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

from ..loading.lines import READ_BYTES, OversizedLine, read_lines
from ..models.ingest import Part
from ..models.limits import LIMITS, StorageLimits

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
    """Stream the object once, cutting it into parts; a gzip object's parts go to ``write_part``.
    Works a block at a time (newlines are counted, not iterated), so a million blank lines plan in
    about the time it takes to read them."""
    stored = _Counted(raw)
    head = stored.read(2)
    compressed = head == GZIP_MAGIC
    decoded = _Counted(_decoded(stored, head, compressed), lambda count: _check(stored.count, count, limits))
    planner = _Planner(part_lines, limits, write_part if compressed else None)
    try:
        while block := decoded.read(READ_BYTES):
            planner.feed(block)
    except _ObjectRefused as refused:
        return Plan(gzip=compressed, lines=0, refused=str(refused))
    except (OSError, EOFError, zlib.error) as error:
        return Plan(gzip=compressed, lines=0, refused=f"not a readable gzip stream ({type(error).__name__})")
    planner.finish()
    return Plan(gzip=compressed, lines=planner.lines, parts=planner.parts)


def read_part(
    data: BinaryIO, *, from_part_object: bool, line_bytes: int = LIMITS.line_bytes
) -> Iterator[bytes | OversizedLine]:
    """The lines of one part (a ranged read of a plain object, or a gzip object's part object)."""
    for line in read_lines(data, line_bytes):
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
        self._part = _PartBuffer(limits.line_bytes) if write_part is not None else None
        self._write = write_part
        self.parts: list[Part] = []
        self.lines = 0
        self._offset = self._start = self._first = self._in_part = 0
        self._open_line = False  # bytes after the last newline (a last line without its newline)

    def feed(self, block: bytes) -> None:
        pos = 0
        while pos < len(block):
            cut = self._next_cut(block, pos)
            stop = cut + 1 if cut >= 0 else len(block)
            newlines = block.count(b"\n", pos, stop)
            self.lines += newlines
            self._in_part += newlines
            if self._part is not None:
                self._part.add(block[pos:stop])
            self._offset += stop - pos
            self._open_line = block[stop - 1] != ord("\n")
            if cut >= 0:
                self._cut(self._offset)
            pos = stop

    def finish(self) -> None:
        if self._open_line:
            self.lines += 1
            self._in_part += 1
        if self._offset > self._start:
            self._cut(self._offset)

    def _next_cut(self, block: bytes, pos: int) -> int:
        """The index in ``block`` of the newline that ends the current part, or -1: the first newline
        once the part has its lines and its least bytes, or once it has its most bytes."""
        least = self._start + self._limits.part_min_bytes - 1 - self._offset + pos
        most = self._start + self._limits.part_max_bytes - 1 - self._offset + pos
        cuts = []
        lines_done = _nth_newline(block, pos, self._part_lines - self._in_part)
        if lines_done >= 0 and least < len(block):
            cuts.append(block.find(b"\n", max(lines_done, least, pos)))
        if most < len(block):
            cuts.append(block.find(b"\n", max(most, pos)))
        return min((c for c in cuts if c >= 0), default=-1)

    def _cut(self, end: int) -> None:
        index = len(self.parts)
        self.parts.append(
            Part(index=index, first_line=self._first + 1, lines=self._in_part, start=self._start, end=end)
        )
        if self._part is not None and self._write is not None:
            self._write(index, self._part.take())
        self._first += self._in_part
        self._start, self._in_part = end, 0


def _nth_newline(block: bytes, pos: int, n: int) -> int:
    """The index of the ``n``-th newline at or after ``pos`` (``pos - 1`` for n <= 0), or -1."""
    found = pos - 1
    for _ in range(n):
        found = block.find(b"\n", found + 1)
        if found < 0:
            return -1
    return found


class _PartBuffer:
    """A gzip object's part as it will be stored: its lines, except that a line past ``line_bytes`` is
    never held: it becomes ``OVERSIZED_MARK`` and its size."""

    def __init__(self, line_bytes: int) -> None:
        self._line_bytes = line_bytes
        self._data = bytearray()
        self._line_start = 0  # where the current (unfinished) line starts in _data
        self._dropped = 0  # bytes of the current line dropped so far (0: it is being kept)

    def add(self, segment: bytes) -> None:
        start = 0
        while (end := segment.find(b"\n", start)) >= 0:
            self._extend(segment[start:end])
            self._end_line()
            start = end + 1
        self._extend(segment[start:])

    def take(self) -> bytes:
        if self._dropped:
            self._end_line()
        data = bytes(self._data)
        self._data.clear()
        self._line_start = 0
        return data

    def _extend(self, data: bytes) -> None:
        if self._dropped:
            self._dropped += len(data)
        elif len(self._data) - self._line_start + len(data) > self._line_bytes:
            self._dropped = len(self._data) - self._line_start + len(data)
            del self._data[self._line_start :]
        else:
            self._data += data

    def _end_line(self) -> None:
        if self._dropped:
            self._data += OVERSIZED_MARK + str(self._dropped).encode()
            self._dropped = 0
        self._data += b"\n"
        self._line_start = len(self._data)


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
