"""What of a folder ``retrieval sync`` (and ``retrieval ingest`` of a path) may read: its regular files,
found without following a link, under names S3 can take. A sync reads only its folder, all the way
down: a symbolic link (to a file or a directory, wherever it points) is ``skipped`` with its reason, as
is anything that is not a regular file (a FIFO would block the read, a device has no end) and a file with
more than one hard link (its other name may be outside the folder); a name S3 cannot take is ``failed``
by name before any upload, and the sync carries on with the next file.

The walk and the reads go by directory file descriptors: every component below the folder is opened
relative to its parent with ``O_NOFOLLOW`` (``openat``), so a directory swapped for a link between the
walk and the read, or a file swapped for one, is refused, never followed. The walk is a loop, not a
recursion: a folder nested 10,000 deep is a line of the report (``DEPTH_REASON``), never a
``RecursionError``. A file's size is read (``fstat``) before its bytes, and a file over the size bound
is not read at all."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

S3_KEY_BYTES = 1024
"""S3's limit on an object key, in UTF-8 bytes."""
MAX_DEPTH = S3_KEY_BYTES // 2
"""Folders below the synced one: a key of 1,024 bytes holds at most 512 path components (each one
character and a '/'), so nothing deeper can ever be a key. The walk holds one descriptor per level."""
LINK_REASON = "is a symbolic link (not followed: a sync reads only its folder)"
DIRECTORY_LINK_REASON = "is a symbolic link to a directory (not followed: a sync reads only its folder)"
SWAPPED_REASON = (
    "has a folder on its path that is no longer a folder of the sync (a symbolic link, swapped in while "
    "the sync ran: not followed)"
)
NOT_REGULAR_REASON = "is not a regular file (a FIFO, socket or device is not read)"
DEPTH_REASON = (
    f"is nested more than {MAX_DEPTH} folders deep (no key below it fits S3's {S3_KEY_BYTES:,} bytes): "
    "not listed"
)
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def hard_link_reason(links: int) -> str:
    return (
        f"has {links} hard links (another name, perhaps outside the folder, shares its bytes: "
        "not read; a sync reads only its folder)"
    )


class UnsafePathError(Exception):
    """The path is not a regular file of the folder (a link, a FIFO, a device, a hard link, a swapped
    folder); ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class OversizedFileError(UnsafePathError):
    """The file's size (``fstat``) passes its bound: not read at all."""


def size_bound(key: str) -> Callable[[int], str | None] | None:
    """The size bound a sync reads ``key`` under: a file ingest would skip for its size (every file
    but JSON Lines, which the loader streams and bounds itself) is never read, so a 1 GB file costs the
    sync nothing (its bytes were once read whole before the ingest function refused them)."""
    from retrieval_core.documents.formats import is_lines
    from retrieval_core.documents.limits import DOCUMENT_LIMITS

    if is_lines(key):
        return None
    limit = DOCUMENT_LIMITS.file_bytes

    def too_large(size: int) -> str | None:
        return None if size <= limit else f"larger than {limit // (1024 * 1024)} MB (the size limit)"

    return too_large


@dataclass(frozen=True)
class Refusal:
    """A file the sync does not send: its (printable) key, its fate and why."""

    key: str
    status: Literal["skipped", "failed"]
    reason: str

    def entry(self) -> dict[str, Any]:
        """Its report line; ``read: false``: never uploaded, so no status is recorded for it."""
        return {"key": self.key, "status": self.status, "chunks": 0, "reason": self.reason, "read": False}


@dataclass(frozen=True)
class FolderFile:
    """A regular file the walk found: read again from the folder, component by component."""

    folder: Path
    parts: tuple[str, ...]

    def read(self, size_limit: Callable[[int], str | None] | None = None) -> bytes:
        """Its bytes (``UnsafePathError`` if it is no longer a regular file of the folder, or when
        ``size_limit`` names a bound its size passes: then nothing is read)."""
        directory = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in self.parts[:-1]:  # one descriptor held at a time
                try:
                    below = _descend_from(directory, part)
                except OSError as error:
                    raise UnsafePathError(f"could not be read ({error.strerror})") from None
                os.close(directory)
                directory = below
            return _read_at(directory, self.parts[-1], size_limit)
        finally:
            os.close(directory)


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


def folder_files(folder: Path, prefix: str) -> tuple[dict[str, FolderFile], list[Refusal]]:
    """The folder's regular files by key (``prefix`` + path relative to ``folder``), and the refusals:
    every link, non-regular or hard-linked file, unreadable or too deep directory and name S3 cannot
    take. Depth first, one open descriptor per level (at most ``MAX_DEPTH``)."""
    files: dict[str, FolderFile] = {}
    refused: list[Refusal] = []
    root = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    # Each level: its descriptor, its path below the folder, and the names still to visit in it.
    levels: list[tuple[int, tuple[str, ...], list[str]]] = [(root, (), _names(root))]
    try:
        while levels:
            directory, parts, names = levels[-1]
            if not names:
                os.close(directory)
                levels.pop()
                continue
            name = names.pop()
            path = (*parts, name)
            relative = printable("/".join(path))
            try:
                info = os.stat(name, dir_fd=directory, follow_symlinks=False)
            except OSError as error:  # gone since it was listed
                refused.append(Refusal(relative, "failed", f"could not be listed ({error.strerror})"))
                continue
            if stat.S_ISDIR(info.st_mode):
                level = _entered(directory, path, info, refused)
                if level is not None:
                    levels.append(level)
            elif (problem := _entry_problem(directory, name, info)) is not None:
                refused.append(Refusal(relative, "skipped", problem))
            elif (problem := key_problem(prefix + "/".join(path))) is not None:
                refused.append(Refusal(relative, "failed", problem))
            else:
                files[prefix + "/".join(path)] = FolderFile(folder, path)
    finally:
        for directory, _, _ in levels:
            os.close(directory)
    return files, refused


def _entered(
    directory: int, path: tuple[str, ...], info: os.stat_result, refused: list[Refusal]
) -> tuple[int, tuple[str, ...], list[str]] | None:
    """The level of the folder at ``path`` (its descriptor, path and names), or None with its refusal:
    too deep, swapped for a link since it was seen, or unreadable."""
    relative = printable("/".join(path))
    if len(path) > MAX_DEPTH:
        refused.append(Refusal(relative, "failed", DEPTH_REASON))
        return None
    child = None
    try:
        child = _descend_checked(directory, path[-1], info)
        return child, path, _names(child)
    except UnsafePathError as unsafe:
        refused.append(Refusal(relative, "skipped", unsafe.reason))
    except OSError as error:
        if child is not None:
            os.close(child)
        refused.append(Refusal(relative, "failed", f"could not be listed ({error.strerror})"))
    return None


def count_files(folder: Path, wanted: Callable[[str], bool]) -> int:
    """How many regular files of the folder ``folder_files`` would return whose key ``wanted`` takes."""
    files, _ = folder_files(folder, "")
    return sum(1 for key in files if wanted(key))


def _names(directory: int) -> list[str]:
    """A directory's names, in reverse order (popped from the end: visited in order)."""
    with os.scandir(directory) as entries:
        return sorted((entry.name for entry in entries), reverse=True)


def _entry_problem(directory: int, name: str, info: os.stat_result) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        try:
            points_to_directory = stat.S_ISDIR(os.stat(name, dir_fd=directory).st_mode)
        except OSError:  # dangling, or a loop
            points_to_directory = False
        return DIRECTORY_LINK_REASON if points_to_directory else LINK_REASON
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR_REASON
    return hard_link_reason(info.st_nlink) if info.st_nlink > 1 else None


def _descend_checked(directory: int, name: str, seen: os.stat_result) -> int:
    """``name``'s descriptor, the directory the walk saw (not one swapped in since)."""
    child = _descend_from(directory, name)
    opened = os.fstat(child)
    if (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(child)
        raise UnsafePathError(SWAPPED_REASON)
    return child


def _descend_from(directory: int, name: str) -> int:
    try:
        return os.open(name, _DIRECTORY, dir_fd=directory)
    except OSError as error:
        if error.errno in {errno.ELOOP, errno.ENOTDIR}:  # a link (or a file) where a folder was
            raise UnsafePathError(SWAPPED_REASON) from None
        raise


def _read_at(directory: int, name: str, size_limit: Callable[[int], str | None] | None) -> bytes:
    try:
        descriptor = os.open(name, _FILE, dir_fd=directory)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafePathError(LINK_REASON) from None
        raise UnsafePathError(f"could not be read ({error.strerror})") from None
    return _read_opened(descriptor, size_limit)


def _read_opened(descriptor: int, size_limit: Callable[[int], str | None] | None) -> bytes:
    """The bytes of an open file, once ``fstat`` says it is a regular file of one name within its size
    bound; then read no further than the size it had (a file growing meanwhile is cut there)."""
    with os.fdopen(descriptor, "rb") as opened:
        info = os.fstat(opened.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePathError(NOT_REGULAR_REASON)
        if info.st_nlink > 1:
            raise UnsafePathError(hard_link_reason(info.st_nlink))
        if size_limit is not None and (too_large := size_limit(info.st_size)) is not None:
            raise OversizedFileError(too_large)
        return opened.read(info.st_size)


def read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file, never through a link (``UnsafePathError``):
    ``retrieval ingest`` of one path, whose folders are the caller's to name."""
    try:
        descriptor = os.open(path, _FILE)
    except OSError as error:
        if path.is_symlink():
            raise UnsafePathError(LINK_REASON) from None
        raise UnsafePathError(f"could not be read ({error.strerror})") from None
    return _read_opened(descriptor, None)
