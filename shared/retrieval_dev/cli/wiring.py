"""Building the loader from settings (the CLI's share of the composition)."""

from __future__ import annotations

from retrieval_core.adapters.opensearch.index import ContextIndices
from retrieval_core.config import Settings
from retrieval_core.errors import BackendUnavailableError
from retrieval_core.loading.loader import Loader
from retrieval_core.loading.rows import TableNames


def context_indices(settings: Settings, dimension: int) -> ContextIndices:
    """The deployment's index layout on the shared client; fails early, and says how to start the
    local stack, when OpenSearch does not answer."""
    from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
    from retrieval_core.adapters.opensearch.client import shared_client
    from retrieval_core.adapters.opensearch.index import IndexSpec
    from retrieval_core.adapters.opensearch.layout import IndexLayout

    client = shared_client(settings)
    try:
        client.info()
    except OpenSearchConnectionError as error:
        raise BackendUnavailableError(
            f"OpenSearch is not reachable at {settings.opensearch_endpoint}: "
            "start the local stack with `make up`, or set RETRIEVAL_OPENSEARCH_ENDPOINT."
        ) from error
    return ContextIndices(client, IndexLayout.of(settings), IndexSpec.of(settings, dimension))


def loader_for(settings: Settings) -> Loader:
    from retrieval_core.adapters.dynamodb_client import dynamodb_client
    from retrieval_core.embedding.factory import embedder_from_settings

    embedder = embedder_from_settings(settings)
    return Loader(
        indices=context_indices(settings, embedder.dimension),
        dynamodb=dynamodb_client(settings),
        tables=TableNames(edges=settings.edges_table, lineage=settings.lineage_table),
        embedder=embedder,
    )
