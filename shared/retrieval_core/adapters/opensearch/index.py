"""The item index: explicit mappings behind an alias, lucene HNSW vectors, documents routed by context.
Which index a context uses is ``client.IndexLayout``'s decision; this module creates and checks them.

Only the ``lucene`` k-NN engine is used: it supports efficient filtering inside the ``knn`` clause and
needs no native library (the local node's k-NN plugin ships none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ...config import Settings
from ...models.limits import LIMITS
from ...models.metadata import FieldType, MetadataSchema
from ..errors import IndexDimensionMismatchError, IndexMetadataMismatchError
from .client import INDEX_VERSION, IndexLayout, opensearch_failures
from .documents import HEADING_FIELD

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

_REFRESH_BATCH = 50
WRITE_TIMEOUT_SECONDS = 120.0
"""Creating an index and refreshing after a load: write-side calls no caller waits on (see
``writer.BULK_TIMEOUT_SECONDS``), so a cold node is given time rather than reported as down."""
VECTOR_FIELD = "embedding"
KNN_ENGINE = "lucene"
KNN_SPACE = "cosinesimil"
TEXT_ANALYZER = "item_text"
VectorEncoding = Literal["fp32", "int8"]


METADATA_MAPPING = {
    FieldType.KEYWORD: {"type": "keyword"},
    FieldType.NUMBER: {"type": "double"},
    FieldType.DATE: {"type": "date", "format": "strict_date_optional_time"},
    FieldType.BOOLEAN: {"type": "boolean"},
}

# Undeclared metadata keys: every scalar (string, number, boolean) is an exact-string keyword, whatever
# the first document held, so no tenant's values can fix a key's type for another; objects are kept
# in _source only. Date detection is off: a date-looking string stays a string unless declared.
METADATA_TEMPLATES = [
    {
        f"metadata_{json_type}": {
            "path_match": "metadata.*",
            "match_mapping_type": json_type,
            "mapping": {"type": "keyword"},
        }
    }
    for json_type in ("string", "long", "double", "boolean")
] + [
    {
        "metadata_object": {
            "path_match": "metadata.*",
            "match_mapping_type": "object",
            "mapping": {"type": "object", "enabled": False},
        }
    }
]


NAME_PROPERTIES: dict[str, Any] = {
    # The entity dictionary (documents.name_fields): names as words for the lookup, and the entries.
    # The built-in standard analyzer, so an index created before them can take them by a mapping update.
    "entity_names": {"type": "text", "analyzer": "standard"},
    "entity_name_keys": {"type": "keyword"},
    # A section's heading path (documents.HEADING_FIELD), indexed as part of ``text`` (copy_to: the
    # text field's own analyzer reads it) and stored for the vector reuse check, not returned in hits.
    HEADING_FIELD: {"type": "text", "analyzer": "standard", "copy_to": "text"},
}
"""Fields added after the first indices were made: an index without them gets them by a mapping update
(``ContextIndices._check_mapping``)."""


@dataclass(frozen=True, slots=True)
class VectorIndexing:
    """How the lucene HNSW graph is built and its vectors kept (``Settings.opensearch_vector_encoding``,
    ``opensearch_knn_m``, ``opensearch_knn_ef_construction``). A mapping cannot change them in place:
    an index takes new ones when it is rebuilt (docs/SCALING.md)."""

    encoding: VectorEncoding = "fp32"
    m: int = 16
    ef_construction: int = 128

    def method(self) -> dict[str, Any]:
        parameters: dict[str, Any] = {"m": self.m, "ef_construction": self.ef_construction}
        if self.encoding == "int8":
            # Lucene's scalar quantizer (OpenSearch 2.16+): 7-bit values in a byte per dimension,
            # quantiles per segment; the float vectors stay on disk for merges and rescoring.
            parameters["encoder"] = {"name": "sq"}
        return {"name": "hnsw", "engine": KNN_ENGINE, "space_type": KNN_SPACE, "parameters": parameters}

    @classmethod
    def of(cls, settings: Settings) -> VectorIndexing:
        return cls(
            settings.opensearch_vector_encoding,
            m=settings.opensearch_knn_m,
            ef_construction=settings.opensearch_knn_ef_construction,
        )


def metadata_properties(schema: MetadataSchema) -> dict[str, Any]:
    return {name: dict(METADATA_MAPPING[field_type]) for name, field_type in schema.items()}


def index_body(
    dimension: int,
    *,
    shards: int,
    replicas: int,
    refresh_interval: str,
    metadata: MetadataSchema | None = None,
    embedder: str | None = None,
    vectors: VectorIndexing | None = None,
) -> dict[str, Any]:
    """Settings and strict mappings for the item index; ``metadata`` declares typed metadata keys and
    ``embedder`` (recorded in the mapping's ``_meta``) names what made its vectors, so a rebuild knows
    when it must embed again; ``vectors`` is how the k-NN graph is built."""
    return {
        "settings": {
            "index": {
                "knn": True,
                "number_of_shards": shards,
                "number_of_replicas": replicas,
                "refresh_interval": refresh_interval,
            },
            "analysis": _text_analysis(),
        },
        "mappings": {
            "_meta": {"embedder": embedder} if embedder else {},
            "dynamic": "strict",
            "date_detection": False,
            "dynamic_templates": METADATA_TEMPLATES,
            "_routing": {"required": True},
            "properties": _item_properties(dimension, metadata or {}, vectors or VectorIndexing()),
        },
    }


def _text_analysis() -> dict[str, Any]:
    """The ``text`` field's analyzer and the token filters it is built from."""
    return {
        "filter": {
            "english_possessive": {"type": "stemmer", "language": "possessive_english"},
            "english_stemmer": {"type": "stemmer", "language": "english"},
        },
        "analyzer": {
            # Porter stemming, no stop-word list: BM25's IDF already discounts frequent words,
            # and on Cranfield dropping the list scored better (docs/QUALITY.md).
            TEXT_ANALYZER: {
                "type": "custom",
                "tokenizer": "standard",
                "filter": ["english_possessive", "lowercase", "english_stemmer"],
            }
        },
    }


def _item_properties(dimension: int, metadata: MetadataSchema, vectors: VectorIndexing) -> dict[str, Any]:
    """The strict mapping of an item's fields: its declared metadata keys and its vector included."""
    return {
        "id": {"type": "keyword"},
        "context_id": {"type": "keyword"},
        "kind": {"type": "keyword"},
        "status": {"type": "keyword"},
        "entity_ids": {"type": "keyword"},
        "mention_types": {"type": "keyword"},
        **NAME_PROPERTIES,
        "text": {"type": "text", "analyzer": TEXT_ANALYZER},
        "confidence": {"type": "float"},
        "created_at": {"type": "date"},
        "valid_from": {"type": "date"},
        "valid_to": {"type": "date"},
        "source_ids": {"type": "keyword"},
        "supersedes": {"type": "keyword"},
        "contradicts": {"type": "keyword"},
        "mentions": {"type": "object", "enabled": False},
        "grounding": {"type": "object", "enabled": False},
        "metadata": {"type": "object", "dynamic": True, "properties": metadata_properties(metadata)},
        VECTOR_FIELD: {"type": "knn_vector", "dimension": dimension, "method": vectors.method()},
    }


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """What every item index is created with."""

    dimension: int
    shards: int = 1
    replicas: int = 0
    refresh_interval: str = "1s"
    metadata: Mapping[str, FieldType] = field(default_factory=dict)
    embedder: str | None = None
    vectors: VectorIndexing = VectorIndexing()

    @classmethod
    def of(cls, settings: Settings, dimension: int, embedder: str | None = None) -> IndexSpec:
        return cls(
            dimension,
            shards=settings.opensearch_shards,
            replicas=settings.opensearch_replicas,
            refresh_interval=settings.opensearch_refresh_interval,
            metadata=settings.metadata_fields,
            embedder=embedder,
            vectors=VectorIndexing.of(settings),
        )

    def body(self) -> dict[str, Any]:
        return index_body(
            self.dimension,
            shards=self.shards,
            replicas=self.replicas,
            refresh_interval=self.refresh_interval,
            metadata=dict(self.metadata),
            embedder=self.embedder,
            vectors=self.vectors,
        )


class ContextIndices:
    """The write side's view of the layout: creates a context's index on its first write (checking the
    vector dimension of one that exists) and refreshes what a load touched."""

    def __init__(self, client: OpenSearch, layout: IndexLayout, spec: IndexSpec) -> None:
        self.client = client
        self.layout = layout
        self._spec = spec
        self._ready: set[str] = set()

    def ensure(self, context_id: str) -> str:
        """The context's alias, its index created first if absent (once per process and alias)."""
        alias = self.layout.alias(context_id)
        if alias in self._ready:
            return alias
        with opensearch_failures():
            if not self.client.indices.exists_alias(name=alias):
                self._create(context_id, alias)
            self._check_mapping(alias)
        self._ready.add(alias)
        return alias

    def field_types(self, context_id: str) -> dict[str, FieldType]:
        """``ports.ContextFieldTypes`` (``context_field_types``)."""
        return context_field_types(self.client, self.layout, context_id)

    def declare(self, context_id: str, fields: Mapping[str, FieldType]) -> dict[str, FieldType]:
        """``ports.ContextFieldTypes``: ``fields`` typed in the context's index where it does not map
        them yet (silo model only: in the pool one index is every context's, so nothing is declared and
        every field comes back as it is, an exact string). Returns the fields mapped otherwise."""
        if not self.layout.siloed:
            return dict.fromkeys(fields, FieldType.KEYWORD)
        from opensearchpy.exceptions import RequestError

        alias = self.ensure(context_id)
        with opensearch_failures():
            ((index, body),) = self.client.indices.get_mapping(index=alias).items()
            mapped = mapped_metadata(body["mappings"]["properties"])
            absent = {n: dict(METADATA_MAPPING[t]) for n, t in fields.items() if n not in mapped}
            try:
                if absent:
                    self.client.indices.put_mapping(
                        index=index, body={"properties": {"metadata": {"properties": absent}}}
                    )
            except RequestError:  # another writer mapped one of them first, maybe otherwise
                mapped = mapped_metadata(
                    self.client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
                )
        return {n: mapped[n] for n, t in fields.items() if n in mapped and mapped[n] is not t}

    def refresh(self, context_ids: Iterable[str]) -> None:
        """Make what was written to these contexts searchable (once per load, not per chunk)."""
        aliases = sorted({self.layout.alias(c) for c in context_ids})
        for start in range(0, len(aliases), _REFRESH_BATCH):
            with opensearch_failures():
                self.client.indices.refresh(
                    index=",".join(aliases[start : start + _REFRESH_BATCH]),
                    ignore_unavailable=True,
                    request_timeout=WRITE_TIMEOUT_SECONDS,
                )

    def _create(self, context_id: str, alias: str) -> None:
        from opensearchpy.exceptions import RequestError

        body = self._spec.body()
        if not self.layout.siloed:
            # Sized for the per-context key budget (loading/metadata_keys.py), not OpenSearch's 1,000.
            body["settings"]["index"]["mapping.total_fields.limit"] = LIMITS.pool_total_fields
        try:
            self.client.indices.create(
                index=self.layout.index(context_id),
                body={**body, "aliases": {alias: {}}},
                request_timeout=WRITE_TIMEOUT_SECONDS,
            )
        except RequestError as error:
            # Another writer created it first; the dimension check that follows still applies.
            if error.error != "resource_already_exists_exception":
                raise

    def _check_mapping(self, alias: str) -> None:
        """The vector dimension must match; declared metadata keys and the entity dictionary's fields
        the index lacks are added (its older items gain names when next written, or by a rebuild)."""
        for index, body in self.client.indices.get_mapping(index=alias).items():
            absent = {k: v for k, v in NAME_PROPERTIES.items() if k not in body["mappings"]["properties"]}
            if absent:
                self.client.indices.put_mapping(index=index, body={"properties": absent})
            _check_metadata(self.client, index, body["mappings"]["properties"], dict(self._spec.metadata))
            existing = body["mappings"]["properties"][VECTOR_FIELD]["dimension"]
            if existing != self._spec.dimension:
                raise IndexDimensionMismatchError(
                    f"Index '{index}' holds {existing}-dimensional vectors but the embedder produces "
                    f"{self._spec.dimension}. Rebuild the index (`retrieval rebuild`), or use another "
                    "alias (RETRIEVAL_OPENSEARCH_ALIAS)."
                )


def index_generation(client: OpenSearch, layout: IndexLayout, context_id: str) -> str | None:
    """The generation of the index behind ``context_id``'s alias: its ``index.uuid``, which OpenSearch
    draws afresh for every index it creates (a rebuild's, a restore's, a new node's), or None when the
    alias names no index. One settings read."""
    from opensearchpy.exceptions import NotFoundError

    with opensearch_failures():
        try:
            found = client.indices.get_settings(index=layout.alias(context_id), name="index.uuid")
        except NotFoundError:
            return None
    return ",".join(sorted(body["settings"]["index"]["uuid"] for body in found.values())) or None


def context_field_types(
    client: OpenSearch, layout: IndexLayout, context_id: str, timeout: float | None = None
) -> dict[str, FieldType]:
    """The typed metadata keys of the context's own index (none in the pool model, none before its
    first write): what its typed sidecars declared, and the deployment's declaration. One mapping read."""
    from opensearchpy.exceptions import NotFoundError

    if not layout.siloed:
        return {}
    with opensearch_failures():
        try:
            found = client.indices.get_mapping(index=layout.alias(context_id), request_timeout=timeout)
        except NotFoundError:
            return {}
    return {
        name: field_type
        for body in found.values()
        for name, field_type in mapped_metadata(body["mappings"]["properties"]).items()
        if field_type is not FieldType.KEYWORD
    }


MAPPED_AS = {mapping["type"]: field_type for field_type, mapping in METADATA_MAPPING.items()}


def mapped_metadata(properties: Mapping[str, Any]) -> dict[str, FieldType]:
    """The metadata keys an index maps, by the type it maps each as (other mappings left out)."""
    fields = properties.get("metadata", {}).get("properties", {})
    return {n: MAPPED_AS[f["type"]] for n, f in fields.items() if f.get("type") in MAPPED_AS}


def _check_metadata(
    client: OpenSearch, index: str, properties: Mapping[str, Any], schema: MetadataSchema
) -> None:
    indexed = properties.get("metadata", {})
    if indexed.get("enabled") is False:
        raise IndexMetadataMismatchError(
            f"Index '{index}' predates filterable metadata (index version {INDEX_VERSION}). "
            "Rebuild it: load into a new alias (RETRIEVAL_OPENSEARCH_ALIAS) and switch over."
        )
    fields = indexed.get("properties", {})
    missing = {}
    for name, field_type in schema.items():
        wanted = METADATA_MAPPING[field_type]
        if name not in fields:
            missing[name] = dict(wanted)
        elif fields[name].get("type") != wanted["type"]:
            raise IndexMetadataMismatchError(
                f"Index '{index}' maps metadata.{name} as {fields[name].get('type')}, but it is declared "
                f"{field_type}. Rebuild the index (`retrieval rebuild`), or declare the key as it is indexed."
            )
    if missing:
        client.indices.put_mapping(index=index, body={"properties": {"metadata": {"properties": missing}}})
