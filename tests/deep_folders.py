"""Folders nested thousands deep, made and unmade at test time by directory descriptor: their paths are
too long for a path (PATH_MAX is 4,096 bytes), and pathlib's and shutil's walks recurse."""

from __future__ import annotations

import os
from pathlib import Path


def nested(folder: Path, depth: int, file_name: str = "bottom.txt") -> None:
    """``d/d/.../d/file_name``, ``depth`` folders deep, made by descriptor (its path is too long for a
    path, and pathlib's walks are recursive)."""
    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=directory)
        below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
        os.close(directory)
        directory = below
    written = os.open(file_name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=directory)
    os.write(written, b"At the bottom of the well.")
    os.close(written)
    os.close(directory)


def flattened(folder: Path) -> None:
    """Move every folder ``nested`` made up to ``folder`` itself, by descriptor, so that an ordinary
    removal (``shutil.rmtree`` recurses) can take them (and removing a deep chain is slow: ~2 ms a
    level on ext4, against 0.03 ms a rename)."""
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    level, name = 0, "d"
    while True:
        below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=top)
        deeper = "d" in os.listdir(below)
        if deeper:
            os.rename("d", f"level-{level}", src_dir_fd=below, dst_dir_fd=top)
        os.close(below)
        if not deeper:
            break
        level, name = level + 1, f"level-{level}"
    os.close(top)
