"""``retrieval invoke FUNCTION EVENT.json``: the handler's response as JSON on stdout (with ``--body``,
only its body, decoded: API Gateway's answer carries it as a JSON string); its logs on stderr, and its
metric lines too with ``--show-metrics``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .lambda_runtime import FUNCTIONS, add_show_metrics_flag


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("function", choices=FUNCTIONS)
    parser.add_argument("event", type=Path, help="An event file, e.g. events/retrieve/200-hybrid.json")
    parser.add_argument(
        "--body", action="store_true", help="Print only the response's body, decoded (status on stderr)."
    )
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        event = json.loads(args.event.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        print(f"retrieval invoke: cannot read event {args.event}: {error}", file=sys.stderr)
        return 2
    from .environment import use_local_stack_env
    from .lambda_runtime import UnknownFunctionError, invoke, show_metrics

    use_local_stack_env()
    show_metrics(args.show_metrics)
    try:
        if args.function == "ingest":  # and the parts it queued, as the SQS trigger would run them
            from .ingest import invoke_with_parts

            response = invoke_with_parts(event)
        else:
            response = invoke(args.function, event)
    except UnknownFunctionError as error:
        print(f"retrieval invoke: {error}", file=sys.stderr)
        return 2
    if args.body:
        print(f"status {response.get('statusCode')}", file=sys.stderr)
        response = decoded_body(response)
    json.dump(response, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def decoded_body(response: dict[str, Any]) -> Any:
    """The body of a handler's answer as JSON: API Gateway's is a string (decoded here, unless it is not
    JSON), a direct invocation's already an object; an answer without one is itself."""
    body = response.get("body", response) if isinstance(response, dict) else response
    if isinstance(body, str):
        try:
            return json.loads(body)
        except json.JSONDecodeError:
            return body
    return body
