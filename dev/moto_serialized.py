"""moto's server with one lock around every request, and Query and item sizes as DynamoDB has them.

Why the lock: moto applies a conditional UpdateItem as read-check-write without a lock, so two concurrent
requests can both pass the same condition. Real DynamoDB makes each conditional write atomic; the
policy's budget/dedup tests need that guarantee. Serializing requests gives it back. Why the rest:
``dev.moto_faithful``.
Usage: python -m dev.moto_serialized HOST PORT
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

from dev import moto_faithful

_app = DomainDispatcherApplication(create_backend_app)
_lock = threading.Lock()


def serialized(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    with _lock:
        return list(_app(environ, start_response))


if __name__ == "__main__":
    moto_faithful.install()
    run_simple(sys.argv[1], int(sys.argv[2]), serialized, threaded=True, request_handler=MotoRequestHandler)
