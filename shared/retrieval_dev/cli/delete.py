"""``retrieval delete ID...``: remove items (their document, edges, lineage rows and the reverse links
they wrote), as a ``{"op": "delete", "id": ...}`` line in ``retrieval load`` would."""

from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID", help="Item ids with their context prefix (acme:p-1).")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from retrieval_core.errors import RetrievalError

    from .environment import local_loader

    lines = [json.dumps({"op": "delete", "id": item_id}) for item_id in args.ids]
    try:
        report = local_loader().load_lines(lines)
    except RetrievalError as error:
        print(f"retrieval delete: {error.message}", file=sys.stderr)
        return 1
    for problem in report.errors:
        print(f"rejected {args.ids[problem.line - 1]}: {problem.field}: {problem.message}", file=sys.stderr)
    if report.unwritten:
        print("not deleted (re-run to repair): " + ", ".join(report.unwritten), file=sys.stderr)
    print(f"{report.deleted} deleted, {report.absent} were already absent")
    return 0 if report.ok else 1
