"""The Lambda Invoke API in front of the real handlers, as ``sam local start-lambda`` serves it.

moto's Step Functions interpreter sends every service call of a task to the moto server it runs in
(``http://localhost:$MOTO_PORT``), so one WSGI app answers both: ``POST /2015-03-31/functions/NAME/
invocations`` runs the handler in-process, everything else goes to moto.
"""

from __future__ import annotations

import json
import re
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from ..cli.lambda_runtime import FUNCTIONS, invoke

INVOKE_PATH = re.compile(r"^/2015-03-31/functions/(?P<function>[^/]+)/invocations$")
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# Handlers redirect stdout while they run (see ``lambda_runtime.invoke``); concurrent redirects would
# restore each other's streams, so invocations take turns. The Map state's concurrency is not lost
# where it matters: the local stack serializes DynamoDB requests anyway.
_one_at_a_time = threading.Lock()


def function_name(path_segment: str) -> str | None:
    """``retrieve``, a partial ARN or a full ARN (``...:function:retrieve[:qualifier]``) -> ``retrieve``."""
    name = unquote(path_segment)
    if ":function:" in name:
        name = name.split(":function:", 1)[1].split(":", 1)[0]
    return name if name in FUNCTIONS else None


def lambda_invoke_app(fallback: WsgiApp) -> WsgiApp:
    """A WSGI app answering Lambda Invoke for the project's functions and passing all else to ``fallback``."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        match = INVOKE_PATH.fullmatch(environ.get("PATH_INFO", ""))
        if match is None or environ.get("REQUEST_METHOD") != "POST":
            return fallback(environ, start_response)
        name = function_name(match["function"])
        if name is None:
            return _reply(
                start_response,
                404,
                {"Type": "User", "message": "Function not found"},
                {"X-Amzn-ErrorType": "ResourceNotFoundException"},
            )
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b"{}"
        try:
            event = json.loads(raw or b"{}")
        except ValueError:
            return _reply(
                start_response,
                400,
                {"Type": "User", "message": "Could not parse request body"},
                {"X-Amzn-ErrorType": "InvalidRequestContentException"},
            )
        try:
            with _one_at_a_time:
                result = invoke(name, event)
        except Exception as error:  # an unhandled error is the function's, reported the way Lambda does
            failure = {
                "errorMessage": str(error),
                "errorType": type(error).__name__,
                "stackTrace": traceback.format_tb(error.__traceback__),
            }
            return _reply(start_response, 200, failure, {"X-Amz-Function-Error": "Unhandled"})
        return _reply(start_response, 200, result, {})

    return app


def _reply(
    start_response: Callable[..., Any], status: int, body: Any, headers: dict[str, str]
) -> list[bytes]:
    payload = json.dumps(body).encode("utf-8")
    reasons = {200: "OK", 400: "Bad Request", 404: "Not Found"}
    start_response(
        f"{status} {reasons[status]}",
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(payload))),
            ("X-Amz-Executed-Version", "$LATEST"),
            *headers.items(),
        ],
    )
    return [payload]
