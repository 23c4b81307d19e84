"""Every test fake and adapter assigned to the port it stands for, so that mypy (``make lint``) fails
when a fake drifts from its port. Nothing here runs; the check is the type check."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fake_functions import FakeKnowledgeBases
    from fakes_cursors import InMemoryCursorStore
    from fakes_documents import MemoryDocumentStatuses
    from fakes_generations import FakeGenerations
    from fakes_graph import FakeGraph, FakeItems, FakeLineage
    from fakes_ingest import MemoryObjects, RecordingQueue, RecordingSink, ScriptedLoader
    from fakes_store import FixedEmbedder, InMemoryLexicalStore, InMemoryStore
    from fakes_writes import MemoryItemWriter, MemoryKeyLedger, MemoryLineageWriter
    from retrieval_core.adapters.bedrock_rerank import BedrockReranker
    from retrieval_core.adapters.comprehend_entities import ComprehendEntities
    from retrieval_core.adapters.dynamodb_cursors import DynamoCursorStore
    from retrieval_core.adapters.dynamodb_documents import DynamoDocumentStatuses
    from retrieval_core.adapters.dynamodb_edges import DynamoDBEdges
    from retrieval_core.adapters.dynamodb_knowledge_base_records import DynamoKnowledgeBaseRecords
    from retrieval_core.adapters.dynamodb_lineage import DynamoDBLineage
    from retrieval_core.adapters.dynamodb_lineage_writer import DynamoDBLineageWriter
    from retrieval_core.adapters.dynamodb_metadata_keys import DynamoDBMetadataKeyLedger
    from retrieval_core.adapters.dynamodb_sessions import DynamoSessionStore
    from retrieval_core.adapters.opensearch.generations import OpenSearchGenerations
    from retrieval_core.adapters.opensearch.index import ContextIndices
    from retrieval_core.adapters.opensearch.store import OpenSearchStore
    from retrieval_core.adapters.opensearch.writer import OpenSearchItemWriter
    from retrieval_core.adapters.s3_objects import S3ObjectStore
    from retrieval_core.adapters.sqs_parts import SqsPartQueue
    from retrieval_core.adapters.ssm_knowledge_bases import SsmKnowledgeBases
    from retrieval_core.documents.entities import EntityExtractor
    from retrieval_core.documents.name_dictionary import EntityDictionary
    from retrieval_core.documents.name_rules import RuleBasedExtractor
    from retrieval_core.documents.status import DocumentStatusStore
    from retrieval_core.embedding.bedrock import BedrockEmbedder
    from retrieval_core.embedding.local import LocalEmbedder
    from retrieval_core.ingest.ports import ItemSink, LineLoader, ObjectStore, PartQueue
    from retrieval_core.knowledge_bases.events import HandedToIngest, InPlace
    from retrieval_core.knowledge_bases.ports import DocumentEvents, DocumentObjects, Records
    from retrieval_core.lifecycle.ports import IndexGenerations
    from retrieval_core.loading.loader import Loader, LoadProgress
    from retrieval_core.policy import InMemorySessionStore, SessionStore
    from retrieval_core.ports import (
        ContextFieldDeclarations,
        ContextFieldTypes,
        CursorStore,
        Embedder,
        GraphTraversal,
        ItemReader,
        ItemWriter,
        KnowledgeBaseDirectory,
        LexicalSearch,
        LineageReader,
        LineageWriter,
        MetadataKeyLedger,
        Reranker,
        SearchStore,
    )
    from retrieval_dev.cli.progress import Progress

    def document_ports(
        memory: MemoryDocumentStatuses,
        dynamo: DynamoDocumentStatuses,
        rules: RuleBasedExtractor,
        comprehend: ComprehendEntities,
        store: OpenSearchStore,
        indices: ContextIndices,
    ) -> None:
        _memory: DocumentStatusStore = memory
        _dynamo: DocumentStatusStore = dynamo
        _rules: EntityExtractor = rules
        _comprehend: EntityExtractor = comprehend
        _dictionary: EntityDictionary = store
        _read_types: ContextFieldTypes = store  # retrieve reads a context's typed keys
        _declarations: ContextFieldDeclarations = indices  # ingest declares them

    def search_fakes(lexical_only: InMemoryLexicalStore, full: InMemoryStore) -> None:
        _lexical: LexicalSearch = lexical_only
        _items: ItemReader = lexical_only
        _full: SearchStore = full  # every search mode, item and vector reads

    def graph_fakes(graph: FakeGraph, items: FakeItems, lineage: FakeLineage) -> None:
        _graph: GraphTraversal = graph
        _items: ItemReader = items
        _lineage: LineageReader = lineage

    def embedders(fixed: FixedEmbedder, local: LocalEmbedder, bedrock: BedrockEmbedder) -> None:
        _fixed: Embedder = fixed
        _local: Embedder = local
        _bedrock: Embedder = bedrock

    def adapters(
        store: OpenSearchStore, edges: DynamoDBEdges, lineage: DynamoDBLineage, rerank: BedrockReranker
    ) -> None:
        _store: SearchStore = store
        _graph: GraphTraversal = edges
        _lineage: LineageReader = lineage
        _reranker: Reranker = rerank

    def cursor_stores(fake: InMemoryCursorStore, dynamodb: DynamoCursorStore) -> None:
        _fake: CursorStore = fake
        _dynamodb: CursorStore = dynamodb

    def index_generations(fake: FakeGenerations, opensearch: OpenSearchGenerations) -> None:
        _fake: IndexGenerations = fake
        _opensearch: IndexGenerations = opensearch

    def session_stores(fake: InMemorySessionStore, dynamodb: DynamoSessionStore) -> None:
        _fake: SessionStore = fake
        _dynamodb: SessionStore = dynamodb

    def write_adapters(
        items: OpenSearchItemWriter, lineage: DynamoDBLineageWriter, ledger: DynamoDBMetadataKeyLedger
    ) -> None:
        _items: ItemWriter = items
        _lineage: LineageWriter = lineage
        _ledger: MetadataKeyLedger = ledger

    def write_fakes(items: MemoryItemWriter, lineage: MemoryLineageWriter, ledger: MemoryKeyLedger) -> None:
        _items: ItemWriter = items
        _lineage: LineageWriter = lineage
        _ledger: MetadataKeyLedger = ledger

    def ingest_ports(
        objects: MemoryObjects,
        queue: RecordingQueue,
        scripted: ScriptedLoader,
        recording: RecordingSink,
        s3: S3ObjectStore,
        sqs: SqsPartQueue,
        loader: Loader,
    ) -> None:
        _objects: ObjectStore = objects
        _queue: PartQueue = queue
        _scripted: LineLoader = scripted
        _recording: ItemSink = recording
        _s3: ObjectStore = s3
        _sqs: PartQueue = sqs
        _loader: LineLoader = loader
        _sink: ItemSink = loader

    def load_progress(bar: Progress) -> None:
        _bar: LoadProgress = bar

    def knowledge_base_ports(
        records: DynamoKnowledgeBaseRecords,
        s3: S3ObjectStore,
        in_place: InPlace,
        handed: HandedToIngest,
        ssm: SsmKnowledgeBases,
        fake: FakeKnowledgeBases,
    ) -> None:
        _records: Records = records
        _objects: DocumentObjects = s3
        _in_place: DocumentEvents = in_place
        _handed: DocumentEvents = handed
        _ssm: KnowledgeBaseDirectory = ssm
        _fake: KnowledgeBaseDirectory = fake
