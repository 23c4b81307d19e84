"""A real documentation folder nobody here wrote, for ``make docs-check`` and the evaluation suite's
documentation collection (``evaluation.documentation``): Sphinx's own manual (HTML in
Sphinx's layout, as Debian's ``sphinx-doc`` package installs it: 137 pages, their reST sources as
``_sources/*.txt``, images, scripts and links into other packages), fetched with ``apt-get download``
and unpacked with ``dpkg -x`` (no root, nothing installed) into ``.cache/debian-docs/`` (git-ignored:
its contents are never committed). ``python -m retrieval_dev.evaluation.debian_docs`` prints the
folder, fetching it first when it is missing; it fails in one line when ``apt-get`` or ``dpkg`` cannot."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = "sphinx-doc"
HTML = Path("usr/share/doc/sphinx-doc/html")
CACHE = Path(__file__).resolve().parents[3] / ".cache" / "debian-docs"
"""Beside the checkout's other caches (git-ignored)."""


class FetchError(RuntimeError):
    """The package could not be downloaded or unpacked; the message says why in one line."""


def folder(cache: Path = CACHE) -> Path:
    """The manual's HTML folder, fetched and unpacked on first use."""
    unpacked = cache / PACKAGE
    if not (unpacked / HTML / "index.html").is_file():
        _fetch(unpacked)
    return unpacked / HTML


def _fetch(unpacked: Path) -> None:
    for tool in ("apt-get", "dpkg"):
        if shutil.which(tool) is None:
            raise FetchError(f"{tool} is not here: the documentation folder comes from Debian's {PACKAGE}")
    with tempfile.TemporaryDirectory() as download:
        _run(["apt-get", "download", PACKAGE], cwd=download)
        (deb,) = Path(download).glob(f"{PACKAGE}_*.deb")
        shutil.rmtree(unpacked, ignore_errors=True)
        unpacked.mkdir(parents=True)
        _run(["dpkg", "-x", str(deb), str(unpacked)], cwd=download)
        (unpacked / "VERSION").write_text(deb.name.removesuffix(".deb").split("_", 1)[1] + "\n")


def _run(command: list[str], cwd: str) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise FetchError(f"`{' '.join(command)}` failed ({done.returncode}): {last}")


def main() -> int:
    try:
        print(folder())
    except FetchError as error:
        print(f"debian_docs: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
