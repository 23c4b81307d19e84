"""What every boto3 client of the package shares: botocore failures as ``BackendUnavailableError`` (the
error code to the log only: a 503 body names nothing internal), and a client built on first use.

Base-level, so the adapters (DynamoDB, S3, SQS, SSM, Bedrock Rerank) and the Bedrock embedder use one
of each without ``embedding`` importing ``adapters``. boto3 and botocore are imported only when a block
or a client first needs them (the Lambda runtime provides them; the layer does not ship them).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import backend_calls
from .errors import BackendUnavailableError

log = logging.getLogger(__name__)


@contextmanager
def aws_failures(service: str, operation: str) -> Iterator[None]:
    """Turn any botocore error raised inside the block into ``BackendUnavailableError``."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        log.warning("%s %s failed: %s", service, operation, code)
        raise BackendUnavailableError(f"{service} {operation} failed: {code}") from exc
    except BotoCoreError as exc:
        log.warning("%s %s failed: %s", service, operation, type(exc).__name__)
        raise BackendUnavailableError(f"{service} {operation} failed: {type(exc).__name__}") from exc


class LazyClient:
    """A client built by ``build`` on first use, once, even when several threads ask at once (or the
    ``client`` given, a test's stub)."""

    def __init__(self, build: Callable[[], Any], client: Any = None) -> None:
        self._build = build
        self._client = client
        self._lock = threading.Lock()

    def get(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._build()
        return self._client


def deadline_bound_client(
    service: str,
    region: str | None,
    *,
    connect_seconds: float,
    read_seconds: float,
    attempts: int,
    connections: int = 10,
    retry_mode: str = "standard",
) -> Any:
    """A boto3 ``service`` client with short timeouts and standard retries, none of whose attempts starts
    unless it could finish before the request's deadline (``bind_attempts_to_deadline``): a slow or
    throttled service fails the request inside the function's budget, as a 503 with ``Retry-After``,
    instead of running it into Lambda's timeout. ``connections`` is the pool's size (botocore's default
    is ten): as many as the calls a caller keeps in flight. ``retry_mode`` ``adaptive`` adds botocore's
    client-side rate limiting, which slows every thread of the client once the service throttles."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=connect_seconds,
        read_timeout=read_seconds,
        retries={"mode": retry_mode, "total_max_attempts": attempts},
        max_pool_connections=max(10, connections),
    )
    client = boto3.client(service, region_name=region, config=config)
    bind_attempts_to_deadline(client, connect_seconds + read_seconds)
    return client


def bind_attempts_to_deadline(client: Any, attempt_seconds: float) -> None:
    """Refuse any attempt of ``client``'s, first or retry, with less than ``attempt_seconds`` left before
    the deadline (``backend_calls.require``: ``DeadlineExceededError``). Registered on the event botocore
    sends before each attempt, named after the client's own service id."""

    def attempt_fits_the_deadline(**_: Any) -> None:
        backend_calls.require(attempt_seconds)

    service = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register(f"before-send.{service}", attempt_fits_the_deadline)
