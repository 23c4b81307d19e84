"""``retrieval workflow run --input '{...}'``: the evidence workflow executed locally, end to end.

The state machine (``statemachine/evidence.asl.json``) runs on moto's Amazon States Language interpreter;
its Lambda tasks run the real handlers in-process against the local stack. Prints the execution's output
(with ``--history``, its event history too); a failed execution prints its error and cause and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    run_parser = actions.add_parser("run", help="Run the evidence workflow once and print its output.")
    run_parser.add_argument(
        "--input",
        required=True,
        help='The execution input, e.g. {"context_id": "acme", "request": {"text": "who leads payments"}}',
    )
    run_parser.add_argument("--history", action="store_true", help="Also print the event history.")
    run_parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        workflow_input = json.loads(args.input)
    except json.JSONDecodeError as error:
        print(f"retrieval workflow run: --input is not JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(workflow_input, dict):
        print("retrieval workflow run: --input must be a JSON object", file=sys.stderr)
        return 2
    from ..workflow.local_sfn import LocalStepFunctions, WorkflowError
    from .environment import use_local_stack_env

    use_local_stack_env()
    try:
        with LocalStepFunctions() as workflow:
            execution = workflow.run(workflow_input)
            history = workflow.history(execution.arn) if args.history else None
    except WorkflowError as error:
        print(f"retrieval workflow run: {error}", file=sys.stderr)
        return 2
    document: dict[str, Any] = {"status": execution.status, "execution_arn": execution.arn}
    if execution.status == "SUCCEEDED":
        document["output"] = execution.output
    else:
        document |= {"error": execution.error, "cause": execution.cause}
    if history is not None:
        document["history"] = history
    json.dump(document, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
    return 0 if execution.status == "SUCCEEDED" else 1
