"""The ``retrieval`` command: load data, run handlers in-process, serve the API locally, demo, schema.

Each subcommand lives in its own module and is imported only when used.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "load": ("load", "Load items (and delete lines) from a JSON Lines file into the index and tables."),
    "delete": ("delete", "Delete items by id from the index and tables (idempotent)."),
    "ingest": (
        "ingest",
        "Upload a JSON Lines file or a document to the local ingest bucket and run the ingest function.",
    ),
    "sync": ("sync", "Mirror a folder of documents into the local ingest bucket, as a deployed stack syncs."),
    "reindex": ("reindex", "Copy every document into the other isolation model (silo or pool)."),
    "rebuild": ("rebuild", "Rebuild indices from the current declaration and embedder, without downtime."),
    "knowledge-base": (
        "knowledge_base",
        "Serve a context as a Bedrock knowledge base (`create --context C` prints its id) or `list` them.",
    ),
    "schema": ("schema", "Print the JSON Schema of the item format."),
    "openapi": ("openapi", "Print the OpenAPI document of the API (docs/openapi.json)."),
    "search": ("search", 'Ask one question of a context: `search "question" --context C`, a ranked list.'),
    "invoke": ("invoke", "Run a function's handler in-process on an event file, like `sam local invoke`."),
    "serve": ("serve", "Serve the API on 127.0.0.1:3000, like `sam local start-api`."),
    "mcp": ("mcp", "Serve retrieve, graph_path, why_explain and session as MCP tools (stdio or HTTP)."),
    "workflow": ("workflow", "Run the evidence workflow (Step Functions) locally: `workflow run --input`."),
    "eval": ("eval", "Measure retrieval quality (nDCG@10, R@100, MRR@10, latency) on judged queries."),
    "eval-questions": (
        "eval_questions",
        "Compare auto with hybrid (nDCG@5/@10) on the judged agent questions over the sample corpus.",
    ),
    "demo": ("demo", "Load the sample corpus and show every mode, a path, a lineage and a packet."),
}


def parser() -> argparse.ArgumentParser:
    """The whole command line (every subcommand configured); the README's commands are checked with it."""
    parser = argparse.ArgumentParser(prog="retrieval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(f"{__name__}.{module}").configure(sub)
    return parser


OFFLINE = frozenset({"schema", "openapi"})
"""Commands that need no backend; every other one finds the settings and checks the stack first."""
UNAVAILABLE_EXIT = 3


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command not in OFFLINE:
            _require_stack()
        return int(args.run(args) or 0)
    except Exception as error:
        message = expected_failure(error)
        if message is None:
            raise
        print(f"retrieval {args.command}: {message}", file=sys.stderr)
        return UNAVAILABLE_EXIT


def _require_stack() -> None:
    from .environment import use_local_stack_env
    from .stack_check import require_local_stack

    use_local_stack_env()
    require_local_stack()


def expected_failure(error: Exception) -> str | None:
    """The one line for a condition a user meets (the stack down or gone mid-command, no credentials for
    it); None for a bug, whose traceback is the report."""
    from botocore.exceptions import EndpointConnectionError, NoCredentialsError
    from retrieval_core.errors import BackendUnavailableError

    from .stack_check import StackUnavailableError, start_command

    if isinstance(error, StackUnavailableError):
        return str(error)
    if isinstance(error, NoCredentialsError):
        return f"no AWS credentials for the local stack (no .stack/env found?): `{start_command({})}`"
    if isinstance(error, EndpointConnectionError | BackendUnavailableError | ConnectionError):
        return f"a backend stopped answering ({error}): is the stack up? `{start_command({})}`"
    return None


if __name__ == "__main__":
    sys.exit(main())
