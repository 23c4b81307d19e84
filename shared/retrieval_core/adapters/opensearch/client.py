"""One OpenSearch client per container, SigV4-signed in AWS and plain on the local stack."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ...config import Settings
from ...errors import BackendUnavailableError, RetrievalError
from ..errors import BackendMisconfiguredError, BackendRefusedError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

_SIGNING_SERVICE = {"sigv4-es": "es", "sigv4-aoss": "aoss"}


def build_client(settings: Settings) -> OpenSearch:
    """A client for ``settings.opensearch_endpoint``; signing uses opensearch-py's urllib3 signer."""
    from opensearchpy import OpenSearch, Urllib3AWSV4SignerAuth, Urllib3HttpConnection

    url = urlparse(settings.opensearch_endpoint)
    auth = None
    if settings.opensearch_auth in _SIGNING_SERVICE:
        import boto3  # provided by the Lambda runtime; only the signed path needs it

        credentials = boto3.Session().get_credentials()
        auth = Urllib3AWSV4SignerAuth(
            credentials, settings.aws_region, _SIGNING_SERVICE[settings.opensearch_auth]
        )
    return OpenSearch(
        hosts=[{"host": url.hostname, "port": url.port or (443 if url.scheme == "https" else 80)}],
        use_ssl=url.scheme == "https",
        verify_certs=url.scheme == "https",
        http_auth=auth,
        connection_class=Urllib3HttpConnection,
        timeout=settings.opensearch_timeout_seconds,
        # A refused connection fails fast and may be retried; a request that timed out already spent
        # the time a retry would need (callers pass a deadline-bound ``request_timeout`` per call).
        max_retries=settings.opensearch_max_retries,
        retry_on_timeout=False,
        http_compress=url.scheme == "https",
    )


REFUSED_STATUSES = frozenset({400, 413})
THROTTLED_STATUS = 429


@contextmanager
def opensearch_failures() -> Iterator[None]:
    """Turn a failed OpenSearch request inside the block into the error its status means: a refused
    request (400, 413) is ``BackendRefusedError`` (422), throttling (429), a 5xx or no answer at all is
    ``BackendUnavailableError`` (503, retry later), another 4xx ``BackendMisconfiguredError`` (500).
    Messages, for operators, name the failure; API bodies never show it."""
    from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
    from opensearchpy.exceptions import TransportError

    try:
        yield
    except (OpenSearchConnectionError, TransportError) as error:
        status = error.status_code if isinstance(error.status_code, int) else None
        raise failure_of(status, type(error).__name__) from error


def failure_of(status: int | None, name: str = "error") -> RetrievalError:
    """The error an OpenSearch answer with HTTP ``status`` (None: no answer) stands for."""
    if status in REFUSED_STATUSES:
        return BackendRefusedError()
    if status is not None and 400 <= status < 500 and status != THROTTLED_STATUS:
        return BackendMisconfiguredError(f"OpenSearch answered {status} ({name})")
    return BackendUnavailableError(f"OpenSearch failed: {name}{'' if status is None else f' {status}'}")


@cache
def shared_client(settings: Settings) -> OpenSearch:
    """The container-wide client for these settings (created on first use, reused across invocations)."""
    return build_client(settings)
