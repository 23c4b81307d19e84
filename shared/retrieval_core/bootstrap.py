"""The composition root: the one place that builds adapters and services from settings.

A Lambda container builds each piece on first use and reuses it across invocations; what a function
never touches (the embedder for graph_path, say) is never imported or created. Tests and dev tools
replace pieces with ``use(Container(settings, overrides=...))``: the handlers then run unchanged
against in-memory fakes or another stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .config import Settings, settings

if TYPE_CHECKING:
    from .adapters.dynamodb_edges import DynamoDBEdges
    from .adapters.dynamodb_lineage import DynamoDBLineage
    from .adapters.opensearch.generations import OpenSearchGenerations
    from .adapters.opensearch.index import ContextIndices, IndexSpec
    from .adapters.opensearch.store import OpenSearchStore
    from .documents.entities import EntityExtractor
    from .documents.limits import DocumentLimits
    from .documents.listing import DocumentStatuses
    from .documents.name_dictionary import EntityDictionary
    from .documents.status import DocumentStatusStore
    from .graph.service import GraphPathService
    from .ingest.document_files import DocumentFiles
    from .ingest.ports import ObjectStore, PartQueue
    from .ingest.service import IngestService
    from .knowledge_bases.documents import KnowledgeBaseDocuments
    from .knowledge_bases.jobs import IngestionJobs
    from .knowledge_bases.list_tokens import ListTokens
    from .knowledge_bases.ports import DocumentEvents, Records
    from .lifecycle.rebuild import Progress, RebuildService
    from .lineage import WhyExplainService
    from .loading.loader import Loader
    from .loading.metadata_keys import PoolKeyBudget
    from .policy import RetrievalPolicy
    from .ports import (
        Capabilities,
        ContextFieldDeclarations,
        CursorStore,
        Embedder,
        GraphTraversal,
        ItemReader,
        ItemWriter,
        KnowledgeBaseDirectory,
        LineageReader,
        LineageWriter,
        NamingChunks,
        Reranker,
        VectorReader,
    )
    from .retrieval.config import RetrievalConfig
    from .retrieval.modes import Modes
    from .retrieval.pager import Pager
    from .retrieval.pipeline import RankingPipeline, Stages
    from .retrieval.service import RetrieveService

OVERRIDABLE = frozenset(
    {
        "store",
        "items",
        "edges",
        "lineage",
        "embedder",
        "retrieval_config",
        "policy",
        "capabilities",
        "stages",
        "modes",
        "cursors",
        "reranker",
        "knowledge_bases",
        "document_statuses",
        # What ingest writes to and reads from (functions/ingest), each replaceable on its own.
        "objects",
        "part_queue",
        "item_writer",
        "lineage_writer",
        "key_budget",
        "chunk_vectors",
        "entity_dictionary",
        "chunk_naming",
        "field_declarations",
        "entity_extractor",
        "document_limits",
        "index_generation",
    }
)


class Container:
    """Adapters and services for one deployment. ``overrides`` replaces any of ``OVERRIDABLE``."""

    def __init__(self, settings: Settings, *, overrides: dict[str, Any] | None = None) -> None:
        unknown = set(overrides or {}) - OVERRIDABLE
        if unknown:
            raise TypeError(f"cannot override {sorted(unknown)}; choose from {sorted(OVERRIDABLE)}")
        self.settings = settings
        self._overridden = frozenset(overrides or {})
        # cached_property reads the instance dict first, so an override simply pre-fills it.
        self.__dict__.update(overrides or {})

    @cached_property
    def store(self) -> OpenSearchStore:
        from .adapters.opensearch.client import IndexLayout, shared_client
        from .adapters.opensearch.store import OpenSearchStore

        return OpenSearchStore(
            shared_client(self.settings),
            IndexLayout.of(self.settings),
            timeout=self.settings.opensearch_timeout_seconds,
            ef_search=self.settings.opensearch_knn_ef_search,
            oversample=self.settings.knn_oversample,
        )

    @cached_property
    def edges(self) -> GraphTraversal | DynamoDBEdges:
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_edges import DynamoDBEdges

        return DynamoDBEdges(self.settings, dynamodb_client(self.settings))

    @cached_property
    def lineage(self) -> LineageReader | DynamoDBLineage:
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
            self.settings.preset,
            rank_constant=self.settings.rrf_rank_constant,
            metadata=self.settings.metadata_fields,
            rerank_by_model=self.settings.rerank_model != "none",
        )

    @cached_property
    def items(self) -> ItemReader:
        """Item reads by id (graph_path, why_explain, later pages): the search store serves them, without
        the embedder or the graph the full capability set would build."""
        return self.store

    @cached_property
    def capabilities(self) -> Capabilities:
        """What the deployed backends can do: OpenSearch serves every search mode and item reads,
        DynamoDB the graph; the embedder turns text into query vectors."""
        from .ports import Capabilities

        names = None
        if self.settings.question_names == "held":
            from .understanding.alias_index import BoundedDictionary, HeldNames

            # A store that cannot read its dictionary in bounded pages is looked up instead.
            names = HeldNames(self.store) if isinstance(self.store, BoundedDictionary) else None
        return Capabilities(
            search=self.store,
            graph=self.edges,
            embedder=self.embedder,
            reranker=self.reranker,
            names=names,
        )

    @cached_property
    def reranker(self) -> Reranker | None:
        """The Bedrock Rerank model the template chose, or None (requests asking for one say so)."""
        if self.settings.rerank_model == "none":
            return None
        from .adapters.bedrock_rerank import BedrockReranker

        return BedrockReranker(model_id=self.settings.rerank_model, region=self.settings.aws_region)

    @cached_property
    def policy(self) -> RetrievalPolicy:
        from .adapters.dynamodb_sessions import DynamoSessionStore
        from .policy import PolicyConfig, RetrievalPolicy

        config = PolicyConfig(
            limit=self.settings.session_limit, ttl_seconds=self.settings.session_ttl_seconds
        )
        return RetrievalPolicy(DynamoSessionStore.from_settings(self.settings), config)

    @cached_property
    def retrieve(self) -> RetrieveService:
        from .adapters.opensearch.client import IndexLayout
        from .retrieval.service import RetrieveService

        embedder = self.capabilities.embedder
        return RetrieveService(
            policy=self.policy,
            pager=self.pager,
            config=self.retrieval_config,
            dimension=None if embedder is None else embedder.dimension,
            # The store reads a context's types (no index is created, no backend called until a filter
            # names an undeclared key).
            field_types=self.store if IndexLayout.of(self.settings).siloed else None,
            modes=self.modes,
        )

    @cached_property
    def cursors(self) -> CursorStore:
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_cursors import DynamoCursorStore

        return DynamoCursorStore(dynamodb_client(self.settings), self.settings.cursors_table)

    @cached_property
    def pager(self) -> Pager:
        """Pages of ranked modes (on the system clock); without a paging key configured, every answer is
        one page."""
        from .retrieval.pager import Pager
        from .retrieval.paging import PageTokens, PagingConfig

        key = self._paging_key
        return Pager(
            capabilities=self.capabilities,
            retrieval=self.retrieval_config,
            tokens=None if key is None else PageTokens(key),
            cursors=self.cursors if key is not None else None,
            items=self.items,
            config=PagingConfig(
                max_depth=self.settings.paging_max_depth, ttl_seconds=self.settings.paging_ttl_seconds
            ),
            pipeline=self.ranking,
        )

    @cached_property
    def ranking(self) -> RankingPipeline:
        """The ranking pipeline every retrieve request runs, built once per container; the caller's
        context and options travel in each request's ``PreparedQuery``."""
        from .retrieval.pipeline import RankingPipeline

        return RankingPipeline(self.capabilities, self.retrieval_config, self.stages, self.modes)

    @cached_property
    def stages(self) -> Stages:
        """The ranking pipeline's declared stages (``retrieval.pipeline.STAGES``)."""
        from .retrieval.pipeline import STAGES

        return STAGES

    @cached_property
    def modes(self) -> Modes:
        """The modes served (``retrieval.modes.MODES``): the ranking runs and the door plans by them."""
        from .retrieval.modes import MODES

        return MODES

    @cached_property
    def _paging_key(self) -> bytes | None:
        if self.settings.paging_key is not None:
            return self.settings.paging_key.encode()
        if self.settings.paging_key_parameter is not None:
            from .adapters.ssm_parameters import secure_string

            # Read once: the pager that holds it lives as long as the container.
            name, region = self.settings.paging_key_parameter, self.settings.aws_region
            return secure_string(name, max_age_seconds=0, region=region).encode()
        return None

    @cached_property
    def knowledge_bases(self) -> KnowledgeBaseDirectory:
        """The contexts served as Bedrock knowledge bases (SSM parameters; docs/BEDROCK.md)."""
        from .adapters.ssm_knowledge_bases import SsmKnowledgeBases

        return SsmKnowledgeBases(self.settings.knowledge_base_parameter_path, self.settings.aws_region)

    @cached_property
    def graph_path(self) -> GraphPathService:
        from .graph.service import GraphPathService

        return GraphPathService(self.edges, self.items, node_cap=self.retrieval_config.expansion.node_cap)

    @cached_property
    def why_explain(self) -> WhyExplainService:
        from .lineage import WhyExplainService

        return WhyExplainService(self.lineage, self.items)

    @cached_property
    def indices(self) -> ContextIndices:
        """Every context's index on the shared client (created on a context's first write); fails
        early, saying how to start the local stack, when OpenSearch does not answer."""
        from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

        from .adapters.opensearch.client import IndexLayout, shared_client
        from .adapters.opensearch.index import ContextIndices
        from .errors import BackendUnavailableError

        client = shared_client(self.settings)
        try:
            client.info()
        except OpenSearchConnectionError as error:
            raise BackendUnavailableError(
                f"OpenSearch is not reachable at {self.settings.opensearch_endpoint}: "
                "start the local stack with `make up`, or set RETRIEVAL_OPENSEARCH_ENDPOINT."
            ) from error
        return ContextIndices(client, IndexLayout.of(self.settings), self._index_spec())

    def _index_spec(self) -> IndexSpec:
        from .adapters.opensearch.index import IndexSpec

        return IndexSpec.of(self.settings, self.settings.embedding_dimension, embedder=self.embedder.name)

    @cached_property
    def generations(self) -> OpenSearchGenerations:
        """The deployment's indices as generations behind their aliases (what a rebuild works on)."""
        from .adapters.opensearch.client import IndexLayout, shared_client
        from .adapters.opensearch.generations import REQUEST_TIMEOUT_SECONDS, OpenSearchGenerations

        # No request deadline bounds a rebuild: its copies wait for a busy cluster instead of failing.
        timeout = max(self.settings.opensearch_timeout_seconds, REQUEST_TIMEOUT_SECONDS)
        client = shared_client(self.settings.model_copy(update={"opensearch_timeout_seconds": timeout}))
        return OpenSearchGenerations(client, IndexLayout.of(self.settings), self._index_spec(), self.embedder)

    def rebuilder(self, progress: Progress) -> RebuildService:
        """The rebuild use case (``retrieval rebuild``, the rebuild function), reporting to ``progress``."""
        from .lifecycle.rebuild import RebuildService

        return RebuildService(self.generations, progress)

    @cached_property
    def loader(self) -> Loader:
        """The loader on this deployment's write adapters; in the pool model (contexts sharing one
        index) it also keeps each context within its metadata-key budget."""
        from .loading.loader import Loader

        return Loader(
            items=self.item_writer,
            lineage=self.lineage_writer,
            embedder=self.embedder,
            key_budget=self.key_budget,
            metadata=self.settings.metadata_fields,
        )

    @cached_property
    def item_writer(self) -> ItemWriter:
        from .adapters.opensearch.writer import OpenSearchItemWriter

        return OpenSearchItemWriter(self.indices)

    @cached_property
    def lineage_writer(self) -> LineageWriter:
        from .adapters.dynamodb_client import dynamodb_load_client
        from .adapters.dynamodb_lineage_writer import DynamoDBLineageWriter
        from .adapters.dynamodb_rows import TableNames

        tables = TableNames(edges=self.settings.edges_table, lineage=self.settings.lineage_table)
        return DynamoDBLineageWriter(dynamodb_load_client(self.settings), tables)

    @cached_property
    def key_budget(self) -> PoolKeyBudget | None:
        """The pool model's metadata-key cap per context (None when each context has its own index)."""
        from .adapters.dynamodb_client import dynamodb_load_client
        from .adapters.dynamodb_metadata_keys import DynamoDBMetadataKeyLedger
        from .adapters.opensearch.client import IndexLayout
        from .loading.metadata_keys import PoolKeyBudget

        if IndexLayout.of(self.settings).siloed:
            return None
        ledger = DynamoDBMetadataKeyLedger(dynamodb_load_client(self.settings), self.settings.lineage_table)
        return PoolKeyBudget(ledger, self.settings.metadata_fields)

    @cached_property
    def document_statuses(self) -> DocumentStatusStore:
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_documents import DynamoDocumentStatuses

        return DynamoDocumentStatuses(dynamodb_client(self.settings), self.settings.documents_table)

    @cached_property
    def ledger_statuses(self) -> DocumentStatusStore:
        """The same records as the ingest's and the loader's ledgers keep them, on the loader's client:
        no caller waits on those writes, so a slow answer is waited out instead of failing a batch of
        files (the request path's two-second attempts failed 32 files of a 50,000-file sync when the
        dev stack's moto paused). A replaced ``document_statuses`` (a test's fake) serves both."""
        if "document_statuses" in self._overridden:
            return self.document_statuses
        from .adapters.dynamodb_client import dynamodb_load_client
        from .adapters.dynamodb_documents import DynamoDocumentStatuses

        return DynamoDocumentStatuses(dynamodb_load_client(self.settings), self.settings.documents_table)

    @cached_property
    def document_listing(self) -> DocumentStatuses:
        import secrets

        from .documents.listing import DocumentStatuses, ListingTokens

        # Without a configured key (a bare local run), this container's own: its tokens then page only
        # within it, where retrieve answers one page.
        key = self._paging_key or secrets.token_bytes(32)
        return DocumentStatuses(self.document_statuses, ListingTokens(key), self.index_generation)

    @cached_property
    def document_files(self) -> DocumentFiles:
        """Documents through ingest: parsed, chunked per ``document_chunking``, their entities found in
        the context's dictionary and by the configured extractor."""
        from .documents.entities import MentionFinder
        from .documents.policy import ChunkingPolicy
        from .documents.sources import DocumentSources
        from .ingest.document_files import DocumentFiles

        return DocumentFiles(
            sink=self.loader,
            objects=self.objects,
            statuses=self.ledger_statuses,
            embedder=self.embedder,
            vectors=self.chunk_vectors,
            mentions=MentionFinder(self.entity_dictionary, self.entity_extractor),
            naming=self.chunk_naming,
            fields=self.field_declarations,
            chunking=ChunkingPolicy.model_validate(self.settings.document_chunking),
            sources=DocumentSources.model_validate(self.settings.document_sources),
            metadata=self.settings.metadata_fields,
            limits=self.document_limits,
            generation=self.index_generation,
        )

    @cached_property
    def index_generation(self) -> Callable[[str], str | None]:
        """The generation of a context's index now (``index.uuid``; None when it has none): what a
        file's status names, so a replaced index makes it ``stale``."""
        from functools import partial

        from .adapters.opensearch.client import IndexLayout, shared_client
        from .adapters.opensearch.index import index_generation

        return partial(index_generation, shared_client(self.settings), IndexLayout.of(self.settings))

    @cached_property
    def document_limits(self) -> DocumentLimits:
        """Every bound a file meets from its bytes to the index (docs/DOCUMENTS.md, Bounds); a test
        lowers one to reach it with a small file."""
        from .documents.limits import DOCUMENT_LIMITS

        return DOCUMENT_LIMITS

    @cached_property
    def chunk_vectors(self) -> VectorReader:
        """The stored vectors a re-indexed file reuses (the search store's)."""
        return self.store

    @cached_property
    def entity_dictionary(self) -> EntityDictionary:
        """The context's names a document's mentions are found against (the search store's)."""
        return self.store

    @cached_property
    def chunk_naming(self) -> NamingChunks:
        """The chunks a new page's title back-links (the search store's)."""
        return self.store

    @cached_property
    def field_declarations(self) -> ContextFieldDeclarations | None:
        """Where typed sidecar values declare their keys' types: each context's own index, or nowhere
        in the pool model."""
        from .adapters.opensearch.client import IndexLayout

        return self.indices if IndexLayout.of(self.settings).siloed else None

    @cached_property
    def entity_extractor(self) -> EntityExtractor | None:
        """The extractor ``entity_extractor`` names: rule-based, Comprehend, or none."""
        if self.settings.entity_extractor == "local":
            from .documents.name_rules import RuleBasedExtractor

            return RuleBasedExtractor()
        if self.settings.entity_extractor == "comprehend":
            from .adapters.comprehend_entities import ComprehendEntities, comprehend_client

            return ComprehendEntities(comprehend_client(self.settings.aws_region))
        return None

    @cached_property
    def objects(self) -> ObjectStore:
        from .adapters.s3_objects import S3ObjectStore, s3_client

        return S3ObjectStore(s3_client(self.settings.aws_region))

    @cached_property
    def part_queue(self) -> PartQueue | None:
        """Where a large object's parts are queued (None: every part loads in the same invocation)."""
        from .adapters.sqs_parts import SqsPartQueue, sqs_client

        queue_url = self.settings.ingest_queue_url
        return SqsPartQueue(sqs_client(self.settings.aws_region), queue_url) if queue_url else None

    @cached_property
    def ingest(self) -> IngestService:
        from .ingest.lines_ledger import LinesLedger
        from .ingest.service import IngestService
        from .models.limits import LIMITS

        return IngestService(
            loader=self.loader,
            objects=self.objects,
            queue=self.part_queue,
            part_lines=self.settings.ingest_part_lines,
            limits=LIMITS.model_copy(update={"part_min_bytes": self.settings.ingest_part_min_bytes}),
            documents=self.document_files,
            ledger=LinesLedger(self.ledger_statuses, self.index_generation),
        )

    @cached_property
    def knowledge_base_records(self) -> Records:
        """bedrock-agent's client tokens and ingestion jobs (the documents table)."""
        from .adapters.dynamodb_client import dynamodb_client
        from .adapters.dynamodb_knowledge_base_records import DynamoKnowledgeBaseRecords

        return DynamoKnowledgeBaseRecords(dynamodb_client(self.settings), self.settings.documents_table)

    @cached_property
    def list_tokens(self) -> ListTokens:
        """``nextToken`` of bedrock-agent's listings, sealed with the paging key."""
        import secrets

        from .documents.listing import ListingTokens
        from .knowledge_bases.list_tokens import ListTokens

        # Without a configured key (a bare local run), this container's own (as the documents listing's).
        return ListTokens(ListingTokens(self._paging_key or secrets.token_bytes(32)))

    @cached_property
    def document_events(self) -> DocumentEvents:
        """What indexes a file the document plane wrote: the bucket's notifications (and the ingest
        function for what they do not see), or, without notifications (locally), the pipeline here."""
        from .knowledge_bases.events import HandedToIngest, InPlace, lambda_invoker

        settings = self.settings
        if settings.ingest_notifications and settings.ingest_function_name:
            invoke = lambda_invoker(settings.ingest_function_name, settings.aws_region)
            return HandedToIngest(invoke, settings.ingest_bucket, settings.aws_region)
        return InPlace(lambda: self.document_files, settings.ingest_bucket)

    @cached_property
    def knowledge_base_documents(self) -> KnowledgeBaseDocuments:
        """bedrock-agent's document plane over the ingest bucket and the file statuses."""
        from .adapters.s3_objects import S3ObjectStore, s3_client
        from .knowledge_bases.documents import KnowledgeBaseDocuments

        return KnowledgeBaseDocuments(
            objects=S3ObjectStore(s3_client(self.settings.aws_region)),
            statuses=self.document_statuses,
            events=self.document_events,
            records=self.knowledge_base_records,
            tokens=self.list_tokens,
            bucket=self.settings.ingest_bucket,
            generation=self.index_generation,
        )

    @cached_property
    def ingestion_jobs(self) -> IngestionJobs:
        """bedrock-agent's ingestion jobs: run by the ingest function (asynchronously) when one is
        named, else on a thread of this process (locally)."""
        from .adapters.s3_objects import S3ObjectStore, s3_client
        from .knowledge_bases.jobs import IngestionJobs

        settings = self.settings
        if settings.ingest_function_name:
            from .knowledge_bases.events import lambda_invoker

            invoke = lambda_invoker(settings.ingest_function_name, settings.aws_region)

            def launch(job: dict[str, Any]) -> None:
                invoke({"ingestion_job": job})
        else:
            import threading

            def launch(job: dict[str, Any]) -> None:
                run = self.ingestion_jobs.run
                threading.Thread(target=run, kwargs=job, name="ingestion-job", daemon=True).start()

        return IngestionJobs(
            records=self.knowledge_base_records,
            statuses=self.document_statuses,
            objects=S3ObjectStore(s3_client(settings.aws_region)),
            files=lambda: self.document_files,
            launch=launch,
            tokens=self.list_tokens,
            bucket=settings.ingest_bucket,
        )

    def job_hand_off(self, function_arn: str) -> Callable[[dict[str, Any]], None]:
        """How a job's run short of time (in the ingest function) hands the rest to a new invocation
        of the function running it."""
        from .knowledge_bases.events import lambda_invoker

        invoke = lambda_invoker(function_arn, self.settings.aws_region)
        return lambda rest: invoke({"ingestion_job": rest})


_current: Container | None = None


def container() -> Container:
    """The container-wide composition, built from the environment once."""
    global _current
    if _current is None:
        _current = Container(settings())
    return _current


def reset() -> None:
    """Forget the cached settings and composition (the next call reads the environment again)."""
    global _current
    settings.cache_clear()
    _current = None


@contextmanager
def use(replacement: Container) -> Iterator[Container]:
    """Serve this process's handlers from ``replacement`` until the block ends (tests, dev tools)."""
    global _current
    previous = _current
    _current = replacement
    try:
        yield replacement
    finally:
        _current = previous
