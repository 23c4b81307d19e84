"""Every test fake and adapter assigned to the port it stands for, so that mypy (``make lint``) fails
when a fake drifts from its port. Nothing here runs; the check is the type check."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fakes_cursors import InMemoryCursorStore
    from fakes_generations import FakeGenerations
    from fakes_graph import FakeGraph, FakeItems, FakeLineage
    from fakes_store import FixedEmbedder, InMemoryLexicalStore, InMemoryStore
    from retrieval_core.adapters.dynamodb_cursors import DynamoCursorStore
    from retrieval_core.adapters.dynamodb_edges import DynamoDBEdges
    from retrieval_core.adapters.dynamodb_lineage import DynamoDBLineage
    from retrieval_core.adapters.dynamodb_sessions import DynamoSessionStore
    from retrieval_core.adapters.opensearch.generations import OpenSearchGenerations
    from retrieval_core.adapters.opensearch.store import OpenSearchStore
    from retrieval_core.embedding.bedrock import BedrockEmbedder
    from retrieval_core.embedding.local import LocalEmbedder
    from retrieval_core.lifecycle.ports import IndexGenerations
    from retrieval_core.policy import InMemorySessionStore, SessionStore
    from retrieval_core.ports import (
        CursorStore,
        Embedder,
        EntityIndex,
        FeedbackSearch,
        GraphTraversal,
        HybridSearch,
        ItemReader,
        LexicalSearch,
        LineageReader,
        TemporalSearch,
        VectorSearch,
    )

    def search_fakes(lexical_only: InMemoryLexicalStore, full: InMemoryStore) -> None:
        _lexical: LexicalSearch = lexical_only
        _items: ItemReader = lexical_only
        _vector: VectorSearch = full
        _hybrid: HybridSearch = full
        _entity: EntityIndex = full
        _temporal: TemporalSearch = full
        _feedback: FeedbackSearch = full

    def graph_fakes(graph: FakeGraph, items: FakeItems, lineage: FakeLineage) -> None:
        _graph: GraphTraversal = graph
        _items: ItemReader = items
        _lineage: LineageReader = lineage

    def embedders(fixed: FixedEmbedder, local: LocalEmbedder, bedrock: BedrockEmbedder) -> None:
        _fixed: Embedder = fixed
        _local: Embedder = local
        _bedrock: Embedder = bedrock

    def adapters(store: OpenSearchStore, edges: DynamoDBEdges, lineage: DynamoDBLineage) -> None:
        _lexical: LexicalSearch = store
        _vector: VectorSearch = store
        _hybrid: HybridSearch = store
        _entity: EntityIndex = store
        _temporal: TemporalSearch = store
        _items: ItemReader = store
        _feedback: FeedbackSearch = store
        _graph: GraphTraversal = edges
        _lineage: LineageReader = lineage

    def cursor_stores(fake: InMemoryCursorStore, dynamodb: DynamoCursorStore) -> None:
        _fake: CursorStore = fake
        _dynamodb: CursorStore = dynamodb

    def index_generations(fake: FakeGenerations, opensearch: OpenSearchGenerations) -> None:
        _fake: IndexGenerations = fake
        _opensearch: IndexGenerations = opensearch

    def session_stores(fake: InMemorySessionStore, dynamodb: DynamoSessionStore) -> None:
        _fake: SessionStore = fake
        _dynamodb: SessionStore = dynamodb
