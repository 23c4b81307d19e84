"""Building the loader from settings: the index checked (or created) and the clients of this container.
Used by the ingest function (through the composition root) and by ``retrieval load``."""

from __future__ import annotations

from ..config import Settings
from ..errors import BackendUnavailableError
from ..ports import Embedder
from .loader import Loader
from .rows import TableNames


def loader_for(settings: Settings, embedder: Embedder | None = None) -> Loader:
    from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

    from ..adapters.dynamodb_client import dynamodb_client
    from ..adapters.opensearch.client import shared_client
    from ..adapters.opensearch.index import ensure_index
    from ..embedding.factory import embedder_from_settings

    embedder = embedder or embedder_from_settings(settings)
    client = shared_client(settings)
    try:
        ensure_index(
            client,
            settings.opensearch_alias,
            embedder.dimension,
            shards=settings.opensearch_shards,
            replicas=settings.opensearch_replicas,
            refresh_interval=settings.opensearch_refresh_interval,
        )
    except OpenSearchConnectionError as error:
        raise BackendUnavailableError(
            f"OpenSearch is not reachable at {settings.opensearch_endpoint}: "
            "start the local stack with `make up`, or set RETRIEVAL_OPENSEARCH_ENDPOINT."
        ) from error
    return Loader(
        opensearch=client,
        alias=settings.opensearch_alias,
        dynamodb=dynamodb_client(settings),
        tables=TableNames(edges=settings.edges_table, lineage=settings.lineage_table),
        embedder=embedder,
    )
