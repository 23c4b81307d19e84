"""moto's server with one lock around every request, and Query and item sizes as DynamoDB has them.

Why the lock: moto applies a conditional UpdateItem as read-check-write without a lock, so two concurrent
requests can both pass the same condition. Real DynamoDB makes each conditional write atomic; the
policy's budget/dedup tests need that guarantee. Serializing requests gives it back. Why the rest:
``dev.moto_faithful``.

Two costs of moto's server that no AWS endpoint puts on the calling machine are left out, as they were a
tenth of its CPU in a ``retrieval sync`` (py-spy): the access log's line per request (a server fault,
5xx, is still logged: the stack's log tail is what a failed start shows), and the listing of moto's
package folder (a ``stat`` per service) that it made for every request to find the service a request
is for. The folder does not change while the server runs: it is listed once.
Usage: python -m dev.moto_serialized HOST PORT
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto import backends
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

from dev import moto_faithful

_app = DomainDispatcherApplication(create_backend_app)
_lock = threading.Lock()


def serialized(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    with _lock:
        return list(_app(environ, start_response))


class FaultsOnlyRequestHandler(MotoRequestHandler):
    """moto's request handler, logging a request only when the server failed it."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if str(code).startswith("5"):
            super().log_request(code, size)


def list_moto_modules_once() -> None:
    """moto's service folders, listed now and kept (``DomainDispatcherApplication`` asks per request)."""
    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules  # type: ignore[assignment]


if __name__ == "__main__":
    moto_faithful.install()
    list_moto_modules_once()
    run_simple(
        sys.argv[1], int(sys.argv[2]), serialized, threaded=True, request_handler=FaultsOnlyRequestHandler
    )
