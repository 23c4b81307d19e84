"""Building the loader from settings (the CLI's share of the composition)."""

from __future__ import annotations

from retrieval_core.config import Settings
from retrieval_core.errors import BackendUnavailableError
from retrieval_core.loading.loader import Loader
from retrieval_core.loading.rows import TableNames


def loader_for(settings: Settings) -> Loader:
    from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
    from retrieval_core.adapters.dynamodb_client import dynamodb_client
    from retrieval_core.adapters.opensearch.client import shared_client
    from retrieval_core.adapters.opensearch.index import ensure_index
    from retrieval_core.embedding.factory import embedder_from_settings

    embedder = embedder_from_settings(settings)
    client = shared_client(settings)
    try:
        ensure_index(
            client,
            settings.opensearch_alias,
            embedder.dimension,
            shards=settings.opensearch_shards,
            replicas=settings.opensearch_replicas,
            refresh_interval=settings.opensearch_refresh_interval,
            metadata=settings.metadata_fields,
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
        metadata=settings.metadata_fields,
    )
