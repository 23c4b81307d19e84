"""``retrieval load FILE.jsonl [--context-id X]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast

if TYPE_CHECKING:
    from retrieval_core.bootstrap import Container
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
    from retrieval_core.bootstrap import Container
    from retrieval_core.errors import BackendUnavailableError, RetrievalError
    from retrieval_core.ingest.lines_ledger import DigestingReader
    from retrieval_core.loading.lines import read_lines

    from .environment import local_settings
    from .progress import Progress, count_lines

    # Read as the ingest function reads: bytes split on newlines only, a line past the limit never held.
    with args.file.open("rb") as counted:
        hashed = DigestingReader(counted)
        total = count_lines(cast(BinaryIO, hashed))
        digest = hashed.digest(sys.maxsize) or ""  # read whole already: the file's SHA-256
    deployment = Container(local_settings())
    record = _Record(deployment, args.file.name, args.context_id, digest)
    progress = Progress(total)
    try:
        record.begun()
        with args.file.open("rb") as stream:
            report = deployment.loader.load_lines(
                read_lines(stream), context_id=args.context_id, progress=progress
            )
        record.loaded(report)
    except BackendUnavailableError as error:  # the record's store: nothing was loaded
        print(f"retrieval load: stopped: {error.message}; re-run the same file to finish", file=sys.stderr)
        return STOPPED
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


class _Record:
    """With ``--context-id``, the file's record in the context's ledger (``ingest.lines_ledger``), keyed
    by its name as a synced ``contexts/<context>/<name>`` would be: ``pending`` before its lines load,
    then ``indexed`` or ``failed``. Without one (lines name their own contexts) there is none."""

    def __init__(self, deployment: Container, name: str, context_id: str | None, digest: str) -> None:
        from retrieval_core.context import CONTEXT_ID_PATTERN
        from retrieval_core.ingest.lines_ledger import LinesLedger
        from retrieval_core.models.ingest import ObjectRef

        self._ledger = LinesLedger(deployment.ledger_statuses, deployment.index_generation)
        self._ref = ObjectRef(bucket="", key=f"contexts/{context_id}/{name}", etag=digest)
        self._context_id = context_id if context_id and CONTEXT_ID_PATTERN.fullmatch(context_id) else None
        self._digest = digest

    def begun(self) -> None:
        if self._context_id is not None:
            self._ledger.begun(self._ref, self._context_id, self._digest)

    def loaded(self, report: LoadReport) -> None:
        if self._context_id is not None:
            self._ledger.loaded(self._ref, self._context_id, report, self._digest)


def _unwritten(source: Path, report: LoadReport) -> str:
    """The unwritten ids inline, or the file they were written to (one per line) when there are many."""
    if len(report.unwritten) <= LISTED_INLINE:
        return ", ".join(report.unwritten)
    listing = source.with_name(source.name + ".unwritten")
    listing.write_text("".join(f"{item_id}\n" for item_id in report.unwritten), encoding="utf-8")
    return f"{len(report.unwritten)} ids listed in {listing}"
