"""``retrieval load FILE.jsonl [--context-id X]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval_core.loading.loader import LoadReport

LISTED_INLINE = 20
"""More unwritten ids than this go to a file next to the input instead of the terminal."""
STOPPED = 3
"""Exit status of a load a backend failure stopped (1: it ran to the end with bad lines or unwritten
items)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", type=Path, help='JSON Lines file: one item per line, or {"op": "delete", "id": ...}.'
    )
    parser.add_argument(
        "--context-id", help="Place lines without a context_id here; reject lines naming another."
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        print(f"retrieval load: no such file: {args.file}", file=sys.stderr)
        return 2
    from retrieval_core.errors import RetrievalError
    from retrieval_core.loading.lines import read_lines

    from .environment import local_loader
    from .progress import Progress, count_lines

    # Read as the ingest function reads: bytes split on newlines only, a line past the limit never held.
    with args.file.open("rb") as counted:
        total = count_lines(counted)
    progress = Progress(total)
    try:
        with args.file.open("rb") as stream:
            report = local_loader().load_lines(
                read_lines(stream), context_id=args.context_id, progress=progress
            )
    except RetrievalError as error:
        print(f"retrieval load: {error.message}", file=sys.stderr)
        return 1
    finally:
        progress.close()
    for problem in report.errors:
        print(f"skipped {problem}", file=sys.stderr)
    if report.omitted_errors:
        print(f"skipped {report.omitted_errors} more bad lines (not listed)", file=sys.stderr)
    if report.unwritten:
        print(f"not written: {_unwritten(args.file, report)}", file=sys.stderr)
    print(f"{args.file}: {report.summary()}")
    if report.stopped:
        print(f"retrieval load: stopped: {report.stopped}; re-run the same file to finish", file=sys.stderr)
        return STOPPED
    return 0 if report.ok else 1


def _unwritten(source: Path, report: LoadReport) -> str:
    """The unwritten ids inline, or the file they were written to (one per line) when there are many."""
    if len(report.unwritten) <= LISTED_INLINE:
        return ", ".join(report.unwritten)
    listing = source.with_name(source.name + ".unwritten")
    listing.write_text("".join(f"{item_id}\n" for item_id in report.unwritten), encoding="utf-8")
    return f"{len(report.unwritten)} ids listed in {listing}"
