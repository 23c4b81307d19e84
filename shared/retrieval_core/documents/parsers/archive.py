"""A zip-based office file (XLSX) opened only after its members' declared sizes pass the bounds: the
total they inflate to and each member's compression ratio (a bomb is refused before a byte inflates)."""

from __future__ import annotations

import io
import zipfile

from ..errors import DocumentRejectedError
from ..limits import DocumentLimits

RATIO_FLOOR_BYTES = 1024 * 1024
"""Small members may compress well (XML of repeated cells); only a large one's ratio counts."""


def checked_zip(data: bytes, limits: DocumentLimits, kind: str) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError) as error:
        raise DocumentRejectedError(f"is not {kind} (not a zip archive: {error})") from None
    total = sum(member.file_size for member in members)
    if total > limits.decompressed_bytes:
        raise DocumentRejectedError(
            f"inflates to {total:,} bytes, more than {limits.decompressed_bytes:,} (a zip bomb?)"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR_BYTES and ratio > limits.compression_ratio:
            raise DocumentRejectedError(
                f"has a member ({member.filename}) compressed more than {limits.compression_ratio}:1 "
                "(a zip bomb?)"
            )
    return archive
