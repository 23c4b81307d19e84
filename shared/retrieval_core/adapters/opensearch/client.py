"""One OpenSearch client per container (SigV4-signed in AWS, plain on the local stack), what a failed
answer means, and the index a context's items live in.

**Index layout**: which index a context's items live in: the one place index and alias names are built.

``silo`` (the default): every context has its own versioned index behind its own alias,
``<prefix>.<context>`` -> ``<prefix>.<context>.v2``, so its BM25 statistics, k-NN graph and refreshes
are its own and no other context's writes can move its scores. ``pool``: every context shares
``<prefix>`` -> ``<prefix>-v2`` (the naming used before silos existed; index version 2 made metadata
filterable, so an index of version 1 is rebuilt, not reused: docs/STORAGE.md).

A context id never contains a dot (``context.CONTEXT_ID_PATTERN``) and neither does the prefix
(``Settings.opensearch_alias``), so no context's alias can equal another's index or alias, and no name
can be a wildcard or a path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ...config import IsolationModel, Settings
from ...context import CONTEXT_ID_PATTERN
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


# 2: metadata and mention types became filterable (v1 kept metadata unindexed); rebuild to upgrade.
INDEX_VERSION = 2
_SEPARATOR = "."


class ContextNameError(RetrievalError):
    """A context id that cannot name an index reached the index layout (callers validate it first, so
    this is a bug, reported as a server fault)."""


@dataclass(frozen=True, slots=True)
class IndexLayout:
    prefix: str
    model: IsolationModel = "silo"

    @classmethod
    def of(cls, settings: Settings) -> IndexLayout:
        return cls(settings.opensearch_alias, settings.isolation_model)

    @property
    def siloed(self) -> bool:
        return self.model == "silo"

    def alias(self, context_id: str) -> str:
        """The alias every read and write of ``context_id`` addresses."""
        _check(context_id)
        return f"{self.prefix}{_SEPARATOR}{context_id}" if self.siloed else self.prefix

    def index(self, context_id: str) -> str:
        """The versioned concrete index behind ``alias(context_id)``."""
        return self.versioned(self.alias(context_id))

    def versioned(self, alias: str) -> str:
        """The first index of ``alias`` at this index version; a rebuild's index adds a suffix to it."""
        return f"{alias}{_SEPARATOR}v{INDEX_VERSION}" if self.siloed else f"{alias}-v{INDEX_VERSION}"

    @property
    def alias_pattern(self) -> str:
        """Every alias of this layout (one in the pool, one per context in silos)."""
        return f"{self.prefix}{_SEPARATOR}*" if self.siloed else self.prefix

    @property
    def index_pattern(self) -> str:
        """Every concrete index of this layout, whatever its version: what dropping it all deletes."""
        return f"{self.prefix}{_SEPARATOR}*" if self.siloed else f"{self.prefix}-v*"


def _check(context_id: str) -> None:
    if not CONTEXT_ID_PATTERN.fullmatch(context_id):
        raise ContextNameError("context_id must be 1-63 lowercase letters, digits, '-' or '_'.")
