"""The composition root: the one place that builds adapters and services from settings.

A Lambda container builds each piece on first use and reuses it across invocations; what a function
never touches (the embedder for graph_path, say) is never imported or created.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache, cached_property
from typing import TYPE_CHECKING

from .config import Settings, settings

if TYPE_CHECKING:
    from .adapters.dynamodb_edges import DynamoDBEdges
    from .adapters.dynamodb_lineage import DynamoDBLineage
    from .adapters.opensearch.store import OpenSearchStore
    from .policy import RetrievalPolicy
    from .ports import Embedder
    from .retrieval.config import RetrievalConfig
    from .retrieval.service import RetrieveService


class Container:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def store(self) -> OpenSearchStore:
        from .adapters.opensearch.client import shared_client
        from .adapters.opensearch.store import OpenSearchStore

        return OpenSearchStore(shared_client(self.settings), self.settings.opensearch_alias)

    @cached_property
    def edges(self) -> DynamoDBEdges:
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_edges import DynamoDBEdges

        return DynamoDBEdges(self.settings, dynamodb_client(self.settings))

    @cached_property
    def lineage(self) -> DynamoDBLineage:
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_lineage import DynamoDBLineage

        return DynamoDBLineage(self.settings, dynamodb_client(self.settings))

    @cached_property
    def embedder(self) -> Embedder:
        from .embedding.factory import embedder_from_settings

        return embedder_from_settings(self.settings)

    @cached_property
    def retrieval_config(self) -> RetrievalConfig:
        from .retrieval.config import preset

        return preset(
            "default",
            rank_constant=self.settings.rrf_rank_constant,
            metadata=self.settings.metadata_fields,
        )

    @cached_property
    def policy(self) -> RetrievalPolicy:
        from .adapters.dynamodb_sessions import DynamoSessionStore
        from .policy import PolicyConfig, RetrievalPolicy

        return RetrievalPolicy(
            DynamoSessionStore.from_settings(self.settings), PolicyConfig.from_settings(self.settings)
        )

    @cached_property
    def retrieve(self) -> RetrieveService:
        from .retrieval.service import RetrieveService

        return RetrieveService(
            store=self.store,
            graph=self.edges,
            embedder=self.embedder,
            policy=self.policy,
            config=self.retrieval_config,
        )


@cache
def container() -> Container:
    """The container-wide composition, built from the environment once."""
    return Container(settings())


def reset() -> None:
    """Forget the cached settings and composition (tests and ``retrieval invoke`` change the env)."""
    settings.cache_clear()
    container.cache_clear()


@contextmanager
def serving(target: Settings, **extra_env: str) -> Iterator[None]:
    """Point this process's handlers at ``target`` (through the environment they read, as a deployed
    function is configured) until the block ends; the previous environment is restored afterwards."""
    values = {**target.to_env(), **extra_env}
    previous = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    reset()
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset()
