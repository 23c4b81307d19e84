"""``retrieval invoke FUNCTION EVENT.json``: the handler's response as JSON on stdout (with ``--body``,
only its body, decoded: API Gateway's answer carries it as a JSON string); its logs on stderr, and its
metric lines too with ``--show-metrics``.

``retrieval invoke FUNCTION -`` keeps one warm container instead: it reads events from stdin, one JSON
object per line, and answers each with one line of JSON as soon as its handler returns, so a caller can
send the next event after reading the last answer (a next page's token, a session's repeat). Its logs
for an event are on stderr before that event's answer is on stdout."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .lambda_runtime import FUNCTIONS, add_show_metrics_flag

FROM_STDIN = "-"


class EventReadError(Exception):
    pass


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("function", choices=FUNCTIONS)
    parser.add_argument(
        "event",
        help="An event file, e.g. events/retrieve/200-hybrid.json; '-' reads events from stdin, "
        "one JSON object per line, and answers each with one line",
    )
    parser.add_argument(
        "--body", action="store_true", help="Print only the response's body, decoded (status on stderr)."
    )
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import use_local_stack_env
    from .lambda_runtime import UnknownFunctionError, show_metrics

    use_local_stack_env()
    show_metrics(args.show_metrics)
    try:
        if args.event == FROM_STDIN:
            for event in stdin_events():
                answer(invoked(args.function, event), args.body, indent=None)
        else:
            answer(invoked(args.function, file_event(Path(args.event))), args.body, indent=2)
    except (EventReadError, UnknownFunctionError) as error:
        print(f"retrieval invoke: {error}", file=sys.stderr)
        return 2
    return 0


def file_event(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EventReadError(f"cannot read event {path}: {error}") from error


def stdin_events() -> Iterator[Any]:
    """Each non-blank line of stdin as an event, read only after the previous one was answered."""
    for number, line in enumerate(iter(sys.stdin.readline, ""), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as error:
            raise EventReadError(f"stdin line {number} is not one JSON event: {error}") from error


def invoked(function: str, event: Any) -> Any:
    from .lambda_runtime import invoke

    if function == "ingest":  # and the parts it queued, as the SQS trigger would run them
        from .ingest import invoke_with_parts

        return invoke_with_parts(event)
    return invoke(function, event)


def answer(response: Any, body_only: bool, indent: int | None) -> None:
    if body_only:
        print(f"status {response.get('statusCode')}", file=sys.stderr)
        response = decoded_body(response)
    sys.stderr.flush()  # the event's logs come before its answer, for a caller reading both
    json.dump(response, sys.stdout, indent=indent, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


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
