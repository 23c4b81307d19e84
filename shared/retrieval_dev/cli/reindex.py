"""``retrieval reindex --to silo|pool [--drop-source]``: move a deployment's documents between isolation
models under the same prefix (``RETRIEVAL_OPENSEARCH_ALIAS``).

The two layouts never share a name, so both can exist side by side: copy, switch the deployment's
``IsolationModel``, run the copy again to pick up what was written meanwhile, then drop the source.
"""

from __future__ import annotations

import argparse
import sys

MODELS = ("silo", "pool")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", choices=MODELS, required=True, help="The isolation model to copy into.")
    parser.add_argument(
        "--drop-source",
        action="store_true",
        help="Delete the other model's indices after every document was copied.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import local_settings

    settings = local_settings().model_copy(update={"isolation_model": args.to})
    from retrieval_core.adapters.opensearch.client import IndexLayout
    from retrieval_core.adapters.opensearch.migration import copy_documents, scan_documents
    from retrieval_core.bootstrap import Container
    from retrieval_core.config import IsolationModel
    from retrieval_core.errors import RetrievalError

    source_model: IsolationModel = "pool" if args.to == "silo" else "silo"
    try:
        target = Container(settings).indices
        source = IndexLayout(settings.opensearch_alias, source_model)
        copied = copy_documents(scan_documents(target.client, source.alias_pattern), target)
        if args.drop_source and copied:
            target.client.indices.delete(index=source.index_pattern, allow_no_indices=True)
    except RetrievalError as error:
        print(f"retrieval reindex: {error.message}", file=sys.stderr)
        return 1
    if not copied:
        print(f"nothing to copy: no {source_model} indices under '{settings.opensearch_alias}'")
        return 0
    for context_id, count in sorted(copied.items()):
        print(f"{context_id}: {count} documents -> {target.layout.alias(context_id)}")
    dropped = f"; dropped {source.index_pattern}" if args.drop_source else ""
    print(f"copied {sum(copied.values())} documents from {source_model} to {args.to}{dropped}")
    return 0
