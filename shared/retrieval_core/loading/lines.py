"""Lines of a byte stream, split on ``\\n`` only, never holding more than one line's limit in memory.

A line past ``StorageLimits.line_bytes`` is read through and dropped: its place is an ``OversizedLine``
(so line numbers hold), which the parser turns into a rejected line without ever decoding it. A 50 MB
line therefore costs one block of memory, not 50 MB of text and its parsed form.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from ..models.limits import LIMITS

READ_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class OversizedLine:
    size: int


def read_lines(stream: BinaryIO, max_line_bytes: int = LIMITS.line_bytes) -> Iterator[bytes | OversizedLine]:
    """Every line of ``stream`` (without its ``\\n``; a final newline does not start another line)."""
    pending = bytearray()
    dropped = 0  # bytes of an oversized line read so far (0: the current line is being kept)
    while block := stream.read(READ_BYTES):
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            if dropped:
                yield OversizedLine(dropped + end - start)
                dropped = 0
            elif len(pending) + end - start > max_line_bytes:
                yield OversizedLine(len(pending) + end - start)
                pending.clear()
            else:
                pending += block[start:end]
                yield bytes(pending)
                pending.clear()
            start = end + 1
        rest = len(block) - start
        if dropped:
            dropped += rest
        elif len(pending) + rest > max_line_bytes:
            dropped = len(pending) + rest
            pending.clear()
        else:
            pending += block[start:]
    if dropped:
        yield OversizedLine(dropped)
    elif pending:
        yield bytes(pending)
