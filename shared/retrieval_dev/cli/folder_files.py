"""What of a folder ``retrieval sync`` (and ``retrieval ingest`` of a path) may read: its regular files,
found without following a link, under names S3 can take. A sync reads only its folder: a symbolic link
(to a file or a directory, wherever it points) is ``skipped`` with its reason, as is anything that is not
a regular file (a FIFO would block the read, a device has no end); a name S3 cannot take is ``failed``
by name before any upload, and the sync carries on with the next file.

The read itself opens the file with ``O_NOFOLLOW`` and checks what it opened, so a file swapped for a
link between the walk and the read is refused too."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

S3_KEY_BYTES = 1024
"""S3's limit on an object key, in UTF-8 bytes."""
LINK_REASON = "is a symbolic link (not followed: a sync reads only its folder)"
DIRECTORY_LINK_REASON = "is a symbolic link to a directory (not followed: a sync reads only its folder)"
NOT_REGULAR_REASON = "is not a regular file (a FIFO, socket or device is not read)"


class UnsafePathError(Exception):
    """The path is not a regular file of the folder (a link, a FIFO, a device); ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Refusal:
    """A file the sync does not send: its (printable) key, its fate and why."""

    key: str
    status: Literal["skipped", "failed"]
    reason: str

    def entry(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status, "chunks": 0, "reason": self.reason}


def printable(name: str) -> str:
    """A name as one line of a report: control characters and undecodable bytes escaped."""
    escaped = name.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in escaped)


def key_problem(key: str) -> str | None:
    """Why S3 cannot take ``key`` (or cannot take it safely), or None."""
    try:
        size = len(key.encode("utf-8"))
    except UnicodeEncodeError:
        return "has a name that is not UTF-8 (S3 keys are UTF-8)"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in key):
        return "has a control character in its name (S3 keys may not carry one safely)"
    if size > S3_KEY_BYTES:
        return f"has a key of {size:,} bytes, more than S3's {S3_KEY_BYTES:,} bytes (UTF-8)"
    return None


def folder_files(folder: Path, prefix: str) -> tuple[dict[str, Path], list[Refusal]]:
    """The folder's regular files by key (``prefix`` + path relative to ``folder``), and the refusals:
    every link, non-regular file, unreadable directory and name S3 cannot take."""
    files: dict[str, Path] = {}
    refused: list[Refusal] = []

    def unreadable(error: OSError) -> None:
        name = Path(str(error.filename)).relative_to(folder).as_posix()
        refused.append(Refusal(printable(name), "failed", f"could not be listed ({error.strerror})"))

    for root, directories, names in os.walk(folder, followlinks=False, onerror=unreadable):
        base = Path(root)
        for name in directories:
            if (base / name).is_symlink():
                refused.append(Refusal(_relative(folder, base / name), "skipped", DIRECTORY_LINK_REASON))
        for name in names:
            path = base / name
            relative = path.relative_to(folder).as_posix()
            if (problem := _path_problem(path)) is not None:
                refused.append(Refusal(printable(relative), "skipped", problem))
            elif (problem := key_problem(prefix + relative)) is not None:
                refused.append(Refusal(printable(relative), "failed", problem))
            else:
                files[prefix + relative] = path
    return files, refused


def _relative(folder: Path, path: Path) -> str:
    return printable(path.relative_to(folder).as_posix())


def _path_problem(path: Path) -> str | None:
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        return LINK_REASON
    return None if stat.S_ISREG(mode) else NOT_REGULAR_REASON


def read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file, never through a link (``UnsafePathError``)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if path.is_symlink():
            raise UnsafePathError(LINK_REASON) from None
        raise UnsafePathError(f"could not be read ({error.strerror})") from None
    with os.fdopen(descriptor, "rb") as opened:
        if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
            raise UnsafePathError(NOT_REGULAR_REASON)
        return opened.read()
