"""Runtime configuration, read once per container from the environment (the template sets it)."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .models.limits import LIMITS
from .models.metadata import METADATA_NAME_PATTERN, FieldType
from .models.vocabulary import empty_dict
from .policy.config import DEFAULT_SESSION_LIMIT, DEFAULT_SESSION_TTL_SECONDS
from .retrieval.config import (
    DEFAULT_PAGING_MAX_DEPTH,
    DEFAULT_PAGING_TTL_SECONDS,
    DEFAULT_RANK_CONSTANT,
    PresetName,
)

IsolationModel = Literal["silo", "pool"]
"""How contexts share OpenSearch: ``silo`` gives each context its own index (its own term statistics,
k-NN graph and refreshes); ``pool`` keeps every context in one shared index and hides raw BM25 scores.
docs/STORAGE.md says when each is right."""


ORIGIN_PATTERN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]+)?$")
"""A page origin as a browser sends it: scheme, host and optional port, no path (the template's
``CorsOrigins`` holds each member to the same pattern, ``*`` aside, which its Rule refuses)."""


def origin_list(text: str) -> list[str]:
    """``https://a.test,https://b.test`` -> its members; an empty string (the default) -> none."""
    if text.strip().startswith("["):  # Settings.to_env writes a JSON list
        return [str(member) for member in json.loads(text)]
    return [member.strip() for member in text.split(",") if member.strip()]


def checked_origins(origins: tuple[str, ...]) -> tuple[str, ...]:
    """The origins, lower-cased as browsers send them; ``*`` and anything else no origin is refused."""
    if "*" in origins:
        raise ValueError("'*' is not an origin: list each page origin (https://app.example.com)")
    bad = [origin for origin in origins if not ORIGIN_PATTERN.fullmatch(origin)]
    if bad:
        raise ValueError(f"'{bad[0]}' is not an origin (scheme://host[:port], no path)")
    return tuple(dict.fromkeys(origin.lower() for origin in origins))


DEFAULT_EMBED_CONCURRENCY = 8
"""Bedrock embedding calls in flight for one batch of texts (``RETRIEVAL_BEDROCK_EMBED_CONCURRENCY``):
eight 40 ms calls keep one ingest invocation near 200 texts/s. Titan's default quota is per account and
model (requests a minute, region by region): lower it, or raise the quota, when many functions ingest
at once; throttled calls are retried with backoff, and past the retries the load stops, to be re-run."""


class Settings(BaseModel):
    """Where the backends are and how to talk to them. Defaults suit the local dev stack."""

    model_config = ConfigDict(frozen=True)

    opensearch_endpoint: str = "http://127.0.0.1:9200"
    opensearch_alias: str = Field(default="retrieval-items", pattern=r"^[a-z0-9][a-z0-9_-]{0,127}$")
    """The pool's alias, or the prefix of every context's alias in the silo model."""
    isolation_model: IsolationModel = "silo"
    opensearch_auth: Literal["none", "sigv4-es", "sigv4-aoss"] = "none"
    opensearch_shards: int = Field(default=1, ge=1)
    opensearch_replicas: int = Field(default=0, ge=0)
    opensearch_refresh_interval: str = "1s"
    # The k-NN graph as declared (docs/SCALING.md): a change applies to an index when it is rebuilt
    # (`retrieval rebuild`, no downtime), except ef_search, which every query reads.
    opensearch_vector_encoding: Literal["fp32", "int8"] = "fp32"
    """``int8``: Lucene's scalar quantizer (encoder ``sq``, 7-bit values in a byte) keeps about a quarter
    of the vectors' memory, beside the float vectors it also stores on disk."""
    opensearch_knn_m: int = Field(default=16, ge=2, le=100)
    """HNSW links per node: memory grows by 8 bytes per link and vector, recall with it."""
    opensearch_knn_ef_construction: int = Field(default=128, ge=2, le=4096)
    """The beam while the graph is built: a better graph for a slower load."""
    opensearch_knn_ef_search: int = Field(default=100, ge=1, le=10_000)
    """The beam per query (never below the hits asked for): recall for latency."""
    opensearch_knn_int8_oversample: int = Field(default=2, ge=1, le=10)
    """With int8 vectors a k-NN query reads this many times the hits asked for and orders them by their
    exact float cosine before it keeps them: quantization reorders near neighbours (docs/SCALING.md)."""
    opensearch_timeout_seconds: float = Field(default=5.0, gt=0)
    """The longest one OpenSearch request may take (shortened to the request's deadline)."""
    opensearch_max_retries: int = Field(default=1, ge=0)
    """Retries of a refused or dropped connection; a timed-out request is never retried."""
    aws_region: str = "us-east-1"
    dynamodb_endpoint: str | None = None
    dynamodb_connect_timeout_seconds: float = Field(default=1.0, gt=0)
    dynamodb_read_timeout_seconds: float = Field(default=2.0, gt=0)
    dynamodb_max_attempts: int = Field(default=3, ge=1)
    """Attempts per DynamoDB call, the first included; one is not started unless it can finish in time."""
    request_deadline_share: float = Field(default=0.7, gt=0, le=0.8)
    """The share of an invocation's remaining time its backend calls may use: past it the request
    answers 503 with Retry-After, leaving the rest of the function's timeout to answer."""
    edges_table: str = "retrieval-edges"
    lineage_table: str = "retrieval-lineage"
    sessions_table: str = "retrieval-sessions"
    cursors_table: str = "retrieval-cursors"
    documents_table: str = "retrieval-documents"
    """Each ingested file's status (``GET /v1/documents``; docs/DOCUMENTS.md)."""
    # Paging: tokens are signed with paging_key (dev: written by the stack into .stack/env) or with the
    # SSM SecureString named by paging_key_parameter (deployed), read once per container.
    paging_key: str | None = Field(default=None, repr=False, min_length=16)
    paging_key_parameter: str | None = None
    paging_max_depth: int = Field(default=DEFAULT_PAGING_MAX_DEPTH, ge=100, le=10_000)
    paging_ttl_seconds: int = Field(default=DEFAULT_PAGING_TTL_SECONDS, ge=60, le=86_400)
    embedder: Literal["local", "bedrock"] = "local"
    bedrock_model_id: str = "amazon.titan-embed-text-v2:0"
    bedrock_embed_concurrency: int = Field(default=DEFAULT_EMBED_CONCURRENCY, ge=1, le=64)
    """Bedrock embedding calls in flight for one batch of texts (ingest); embedding/bedrock.py."""
    embedding_dimension: int = Field(default=384, ge=1)
    context_claim: str = "context_id"
    session_limit: int = Field(default=DEFAULT_SESSION_LIMIT, ge=1)
    session_ttl_seconds: int = Field(default=DEFAULT_SESSION_TTL_SECONDS, ge=60)
    preset: PresetName = "default"
    """The retrieval preset (``RETRIEVAL_PRESET``; template parameter ``RetrievalPreset``)."""
    rrf_rank_constant: int = Field(default=DEFAULT_RANK_CONSTANT, ge=1)
    knowledge_base_search_type: Literal["hybrid", "vector"] = Field(
        default="hybrid",
        description="The mode of a Bedrock Knowledge Bases Retrieve request without overrideSearchType.",
    )
    knowledge_base_parameter_path: str = Field(
        default="/retrieval/knowledge-bases",
        pattern=r"^(/[A-Za-z0-9_.-]+)+$",
        description="The SSM path whose String parameters map knowledge base ids to contexts "
        "(<path>/<id> = context; `retrieval knowledge-base create`).",
    )
    knowledge_base_role_arn: str = Field(
        default="arn:aws:iam::000000000000:role/retrieval-ingest",
        pattern=r"^arn:aws(-[^:]+)?:iam::([0-9]{12})?:role/.+$",
        description="The role GetKnowledgeBase names (the ingest function's, deployed).",
    )
    ingest_bucket: str = Field(
        default="retrieval-ingest",
        description="The ingest bucket: the S3 data source of every knowledge base, and where documents "
        "written through IngestKnowledgeBaseDocuments are kept.",
    )
    ingest_notifications: bool = Field(
        default=False,
        description="Whether the bucket's notifications run the ingest function (a deployed stack): a "
        "document written through the API is then indexed by its event; without them (locally) the "
        "function that wrote it indexes it.",
    )
    ingest_function_name: str | None = Field(
        default=None,
        description="The ingest function an ingestion job is handed to (asynchronously); None runs it "
        "on a thread of the caller's process (locally).",
    )
    rerank_model: Literal["none", "amazon.rerank-v1:0", "cohere.rerank-v3-5:0"] = "none"
    """The Bedrock Rerank model (template parameter ``RerankModel``); one set reranks every request by
    default (``rerank.method: model``)."""
    # Ingestion (the ingest function): where parts of a large object are queued, and how many lines
    # one part holds (one invocation loads one part, so it must fit the function's timeout).
    ingest_queue_url: str | None = None
    ingest_part_lines: int = Field(default=2000, ge=1)
    cors_origins: tuple[str, ...] = ()
    """The page origins the API grants CORS to (``RETRIEVAL_CORS_ORIGINS``, comma-separated; the
    template's ``CorsOrigins``): an answer names the request's ``Origin`` when it is one of them, and
    grants nothing otherwise. None by default; ``*`` is refused (``entrypoints.cors``)."""
    ingest_part_min_bytes: int = Field(
        default=LIMITS.part_min_bytes,
        ge=0,
        description="A part's least size (StorageLimits.part_min_bytes); tests lower it for small objects.",
    )
    document_chunking: dict[str, Any] = Field(
        default_factory=empty_dict,
        description="How documents are chunked, as JSON in RETRIEVAL_DOCUMENT_CHUNKING: a default and "
        "per-prefix overrides (documents.policy.ChunkingPolicy; docs/DOCUMENTS.md). {}: Bedrock's default.",
    )
    document_sources: dict[str, Any] = Field(
        default_factory=empty_dict,
        description="Where documents open besides S3, as JSON in RETRIEVAL_DOCUMENT_SOURCES: per key prefix, "
        "the base URL the folder is published at (documents.sources.DocumentSources; docs/DOCUMENTS.md).",
    )
    entity_extractor: Literal["none", "local", "comprehend"] = Field(
        default="local",
        description="What finds entities in document chunks besides the context's dictionary: the "
        "offline rule-based extractor (local, the default: docs/DOCUMENTS.md measures its precision), "
        "Amazon Comprehend DetectEntities (comprehend, opt-in) or nothing (none).",
    )
    question_names: Literal["held", "lookup"] = Field(
        default="held",
        description="Where auto mode finds the names a question could link: in a copy of the context's "
        "dictionary the function holds (held, the default: the question is read before any round trip "
        "and the arms of what it names join hybrid's; understanding/alias_index.py), or looked up in "
        "OpenSearch beside hybrid's arms (lookup: no copy in memory, one round trip more; for contexts "
        "with millions of names, docs/QUALITY.md).",
    )
    metadata_fields: dict[str, FieldType] = Field(
        default_factory=empty_dict,
        description="Declared metadata keys and their types, as JSON in RETRIEVAL_METADATA_FIELDS "
        '(`{"amount": "number", "due": "date"}`); undeclared keys are exact strings (docs/STORAGE.md).',
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origin_list(cls, value: Any) -> Any:
        return origin_list(value) if isinstance(value, str) else value

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return checked_origins(value)

    @field_validator("metadata_fields", "document_chunking", "document_sources", mode="before")
    @classmethod
    def _json_object(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    @field_validator("metadata_fields")
    @classmethod
    def _metadata_names(cls, value: dict[str, FieldType]) -> dict[str, FieldType]:
        bad = [name for name in value if not METADATA_NAME_PATTERN.fullmatch(name)]
        if bad:
            raise ValueError(f"metadata key '{bad[0]}' must be 1-64 letters, digits, '_' or '-'")
        return value

    @property
    def knn_oversample(self) -> int:
        """How many times the hits asked for a k-NN query reads and rescores (1: none, for fp32)."""
        return self.opensearch_knn_int8_oversample if self.opensearch_vector_encoding == "int8" else 1

    def __hash__(self) -> int:
        # Settings key per-container caches (clients); the metadata declaration is a dict.
        return hash(self.model_dump_json())

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """Build from ``RETRIEVAL_*`` variables (``RETRIEVAL_EDGES_TABLE`` sets ``edges_table``)."""
        env = os.environ if environ is None else environ
        values = {
            name: env[f"RETRIEVAL_{name.upper()}"]
            for name in cls.model_fields
            if f"RETRIEVAL_{name.upper()}" in env
        }
        if "aws_region" not in values and env.get("AWS_REGION"):
            values["aws_region"] = env["AWS_REGION"]
        return cls.model_validate(values)

    def deadline_problems(self, function_timeout_seconds: float) -> list[str]:
        """Why these timeouts would not let a function of this timeout answer 503 in time (none: they
        fit). A request's backend calls get ``request_deadline_share`` of the function's time; one
        OpenSearch call and every attempt of one DynamoDB call must fit in it."""
        budget = self.request_deadline_share * function_timeout_seconds
        dynamodb_call = self.dynamodb_max_attempts * (
            self.dynamodb_connect_timeout_seconds + self.dynamodb_read_timeout_seconds
        )
        problems = []
        if self.opensearch_timeout_seconds > budget:
            problems.append(f"opensearch_timeout_seconds {self.opensearch_timeout_seconds} > {budget:.2f} s")
        if dynamodb_call > budget:
            problems.append(f"dynamodb attempts x (connect + read) = {dynamodb_call} > {budget:.2f} s")
        return problems

    def to_env(self) -> dict[str, str]:
        """The ``RETRIEVAL_*`` variables that ``from_env`` reads back into these settings."""
        values = self.model_dump(mode="json", exclude_none=True)
        return {
            f"RETRIEVAL_{name.upper()}": value if isinstance(value, str) else json.dumps(value)
            for name, value in values.items()
        }


@cache
def settings() -> Settings:
    """The container's settings, parsed once."""
    return Settings.from_env()
