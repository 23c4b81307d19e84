"""What ``GetKnowledgeBase``, ``ListKnowledgeBases``, ``GetDataSource`` and ``ListDataSources`` answer
for a context served as a knowledge base: a ``VECTOR`` knowledge base, ``ACTIVE``, with two data
sources of Bedrock's id shape, the same for every knowledge base (a data source is always named with
its knowledge base):

- ``CUSTOMDOCS`` (type ``CUSTOM``): documents written with ``IngestKnowledgeBaseDocuments``, kept as
  files under ``contexts/<context>/bedrock-custom/`` in the ingest bucket (``documents``);
- ``S3CONTEXTS`` (type ``S3``): the context's prefix ``contexts/<context>/`` in the ingest bucket, the
  folder ``retrieval sync`` and S3 notifications feed, which ``StartIngestionJob`` syncs (``jobs``).

Creating, updating and deleting knowledge bases and data sources is not served: ids are made by
``retrieval knowledge-base create`` and the stack by its template (``MANAGED_ELSEWHERE``)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from ..errors import NotFoundError

CUSTOM_DATA_SOURCE_ID = "CUSTOMDOCS"
S3_DATA_SOURCE_ID = "S3CONTEXTS"
DATA_SOURCE_IDS = (CUSTOM_DATA_SOURCE_ID, S3_DATA_SOURCE_ID)
CUSTOM_FOLDER = "bedrock-custom/"
"""Where the custom data source's documents live, relative to ``contexts/<context>/``."""
MANAGED_ELSEWHERE = (
    "Knowledge bases and data sources are not created, updated or deleted through this API: a context "
    "is served as a knowledge base by `retrieval knowledge-base create --context <context>` (its "
    "data sources, CUSTOMDOCS and S3CONTEXTS, come with it), and the stack by its template."
)
_NAME = re.compile(r"^([0-9a-zA-Z][_-]?){1,100}$")
EPOCH = datetime.fromisoformat("2024-01-01T00:00:00+00:00")
"""The creation time every knowledge base reports (the ids do not record theirs)."""


_CUSTOM_DOCUMENT_URI = re.compile(rf"^s3://[^/]+/contexts/[^/]+/{CUSTOM_FOLDER}(?P<name>[^/]+)$")


def custom_document_id(uri: str | None) -> str | None:
    """The id of the custom document whose file ``uri`` is, or None for any other URI: a custom
    document's results are cited as Bedrock cites them (``CUSTOM``, by its id), not as the file."""
    match = _CUSTOM_DOCUMENT_URI.fullmatch(uri or "")
    return None if match is None else unquote(match["name"].rsplit(".", 1)[0])


_CONTEXT_PREFIX_URI = re.compile(r"^s3://[^/]+/contexts/[^/]+/.")


def data_source_of(uri: str | None) -> str | None:
    """The data source ``ListDataSources`` names for the file ``uri``: ``CUSTOMDOCS`` for a custom
    document, ``S3CONTEXTS`` for any other object under a context's prefix, None for a URI no data
    source holds (an item loaded with its own ``s3://`` grounding elsewhere)."""
    if custom_document_id(uri) is not None:
        return CUSTOM_DATA_SOURCE_ID
    return S3_DATA_SOURCE_ID if _CONTEXT_PREFIX_URI.match(uri or "") else None


class KnowledgeBaseNotFoundError(NotFoundError):
    """No knowledge base (or data source, or ingestion job) by that id for this caller: another
    context's gets exactly this error."""

    def __init__(self, what: str = "knowledge base") -> None:
        super().__init__(f"No {what} by that id was found.")


@dataclass(frozen=True, slots=True)
class Deployment:
    """What the descriptions name: where and in what account the stack runs, its ingest bucket, the
    embedding model (and its dimension), and the role its ingestion runs as."""

    region: str
    account: str
    bucket: str
    embedding_model: str
    dimension: int
    role_arn: str


@dataclass(frozen=True, slots=True)
class ServedKnowledgeBase:
    """A knowledge base id and the context it serves."""

    knowledge_base_id: str
    context_id: str


def knowledge_base_arn(deployment: Deployment, knowledge_base_id: str) -> str:
    return f"arn:aws:bedrock:{deployment.region}:{deployment.account}:knowledge-base/{knowledge_base_id}"


def knowledge_base_name(context_id: str) -> str:
    """The context's id where it is a valid Bedrock name, else the id with its separators doubled up
    replaced (a name is letters and digits, each followed by at most one '_' or '-')."""
    if _NAME.fullmatch(context_id):
        return context_id
    squeezed = re.sub(r"[_-]{2,}", "-", context_id).lstrip("_-")
    if _NAME.fullmatch(squeezed):
        return squeezed
    return "context-" + hashlib.sha256(context_id.encode()).hexdigest()[:12]


def knowledge_base(deployment: Deployment, served: ServedKnowledgeBase) -> dict[str, Any]:
    """botocore's ``KnowledgeBase`` for ``served``."""
    model_arn = (
        deployment.embedding_model
        if deployment.embedding_model.startswith("arn:")
        else f"arn:aws:bedrock:{deployment.region}::foundation-model/{deployment.embedding_model}"
    )
    return {
        "knowledgeBaseId": served.knowledge_base_id,
        "name": knowledge_base_name(served.context_id),
        "knowledgeBaseArn": knowledge_base_arn(deployment, served.knowledge_base_id),
        "description": f"Retrieval context {served.context_id}"[:200],
        "roleArn": deployment.role_arn,
        "knowledgeBaseConfiguration": {
            "type": "VECTOR",
            "vectorKnowledgeBaseConfiguration": {
                "embeddingModelArn": model_arn,
                "embeddingModelConfiguration": {
                    "bedrockEmbeddingModelConfiguration": {
                        "dimensions": deployment.dimension,
                        "embeddingDataType": "FLOAT32",
                    }
                },
            },
        },
        "status": "ACTIVE",
        "createdAt": EPOCH,
        "updatedAt": EPOCH,
    }


def knowledge_base_summary(deployment: Deployment, served: ServedKnowledgeBase) -> dict[str, Any]:
    full = knowledge_base(deployment, served)
    return {name: full[name] for name in ("knowledgeBaseId", "name", "description", "status", "updatedAt")}


def data_source(deployment: Deployment, served: ServedKnowledgeBase, data_source_id: str) -> dict[str, Any]:
    """botocore's ``DataSource``; ``KnowledgeBaseNotFoundError`` for an id that is neither of ours."""
    if data_source_id == CUSTOM_DATA_SOURCE_ID:
        name, configuration = "custom-documents", dict[str, Any]({"type": "CUSTOM"})
        description = "Documents written with IngestKnowledgeBaseDocuments."
    elif data_source_id == S3_DATA_SOURCE_ID:
        prefix = f"contexts/{served.context_id}/"
        name = "s3-prefix"
        description = f"s3://{deployment.bucket}/{prefix} (synced by StartIngestionJob and S3 events)."
        configuration = {
            "type": "S3",
            "s3Configuration": {
                "bucketArn": f"arn:aws:s3:::{deployment.bucket}",
                "inclusionPrefixes": [prefix],
            },
        }
    else:
        raise KnowledgeBaseNotFoundError("data source")
    return {
        "knowledgeBaseId": served.knowledge_base_id,
        "dataSourceId": data_source_id,
        "name": name,
        "status": "AVAILABLE",
        "description": description[:200],
        "dataSourceConfiguration": configuration,
        "dataDeletionPolicy": "DELETE",
        "createdAt": EPOCH,
        "updatedAt": EPOCH,
    }


def data_source_summaries(deployment: Deployment, served: ServedKnowledgeBase) -> list[dict[str, Any]]:
    """Both data sources, the custom one first (Strands' memory tool writes to the first CUSTOM one)."""
    return [
        {
            name: source[name]
            for name in ("knowledgeBaseId", "dataSourceId", "name", "status", "description", "updatedAt")
        }
        for source in (data_source(deployment, served, ds) for ds in DATA_SOURCE_IDS)
    ]
