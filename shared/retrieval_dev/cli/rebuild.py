"""``retrieval rebuild (--context C | --all) [--reembed] [--rollback]``: rebuild indices from the current
declaration, analyser and embedder and switch over without downtime, or roll the last rebuild back.

The same use case runs in a deployed stack as the rebuild function (docs/CLUSTER.md#rebuilding-an-index).
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--context", metavar="C", help="Rebuild the index of this context (silo model).")
    which.add_argument("--all", action="store_true", help="Rebuild every index of the deployment.")
    parser.add_argument(
        "--reembed",
        action="store_true",
        help="Compute every vector again (done anyway when the embedder or its dimension changed).",
    )
    parser.add_argument(
        "--rollback",
        action="store_true",
        help="Move back to the index the last rebuild replaced, with what was written since.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import local_settings

    settings = local_settings()  # before the package is imported, as every command reads the stack's env
    from retrieval_core.bootstrap import Container
    from retrieval_core.errors import RetrievalError

    from .progress import CopyProgress

    progress = CopyProgress()
    try:
        service = Container(settings).rebuilder(progress)
        if args.rollback:
            switches = service.rollback(args.context)
        else:
            switches = service.rebuild(args.context, reembed=args.reembed)
    except RetrievalError as error:
        print(f"retrieval rebuild: {error.message}", file=sys.stderr)
        return 1
    finally:
        progress.close()
    if not switches:
        print("nothing to rebuild: the deployment has no index yet")
    for switch in switches:
        vectors = "vectors computed again" if switch.reembedded else "vectors copied"
        print(f"{switch.alias}: {switch.source} -> {switch.target} ({switch.documents} documents, {vectors})")
    return 0
