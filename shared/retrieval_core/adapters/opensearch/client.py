"""One OpenSearch client per container, SigV4-signed in AWS and plain on the local stack."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ...config import Settings
from ...errors import BackendUnavailableError

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


@contextmanager
def backend_failures() -> Iterator[None]:
    """Turn a failed or refused OpenSearch request inside the block into ``BackendUnavailableError``
    (its message, for operators, names the failure; API bodies never show it)."""
    from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
    from opensearchpy.exceptions import TransportError

    try:
        yield
    except (OpenSearchConnectionError, TransportError) as error:
        status = f" {error.status_code}" if isinstance(error.status_code, int) else ""
        raise BackendUnavailableError(f"OpenSearch failed: {type(error).__name__}{status}") from error


@cache
def shared_client(settings: Settings) -> OpenSearch:
    """The container-wide client for these settings (created on first use, reused across invocations)."""
    return build_client(settings)
