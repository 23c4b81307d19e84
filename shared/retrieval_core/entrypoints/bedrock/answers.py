"""Our ``RetrieveResponse`` as botocore's ``RetrieveResponse`` shape: ``retrievalResults`` and
``nextToken``, nothing else (a client's parser reads only the members its model names)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

from ...models.hits import Hit
from ...retrieval.responses import RetrieveResponse
from .names import RESERVED_PREFIX

S3_SCHEME = "s3://"


class TextContent(BaseModel):
    type: Literal["TEXT"] = "TEXT"
    text: str


class S3Location(BaseModel):
    uri: str


class CustomDocumentLocation(BaseModel):
    id: str


class ResultLocation(BaseModel):
    """``S3`` where the item is grounded in an ``s3://`` object, otherwise ``CUSTOM`` with the item id."""

    type: Literal["S3", "CUSTOM"]
    s3Location: S3Location | None = None
    customDocumentLocation: CustomDocumentLocation | None = None


class RetrievalResult(BaseModel):
    content: TextContent
    location: ResultLocation
    score: float
    metadata: dict[str, JsonValue] = Field(
        description="The item's metadata, Bedrock's x-amz-bedrock-kb-chunk-id (and source-uri), and "
        "x-retrieval-* fields: id, kind, status, created-at, confidence, signals, found-by, source-ids, "
        "entity-ids, supersedes."
    )


class KnowledgeBaseRetrieveResponse(BaseModel):
    """botocore's ``RetrieveResponse`` for ``bedrock-agent-runtime`` (``guardrailAction`` never set)."""

    retrievalResults: list[RetrievalResult]
    nextToken: str | None = Field(default=None, description="Send it back for the next page.")


def retrieve_answer(response: RetrieveResponse) -> KnowledgeBaseRetrieveResponse:
    return KnowledgeBaseRetrieveResponse(
        retrievalResults=[retrieval_result(hit) for hit in response.hits], nextToken=response.next_token
    )


def retrieval_result(hit: Hit) -> RetrievalResult:
    uri = s3_uri(hit)
    location = (
        ResultLocation(type="S3", s3Location=S3Location(uri=uri))
        if uri is not None
        else ResultLocation(type="CUSTOM", customDocumentLocation=CustomDocumentLocation(id=hit.id))
    )
    return RetrievalResult(
        content=TextContent(text=hit.text),
        location=location,
        score=hit.score,
        metadata=result_metadata(hit, uri),
    )


def s3_uri(hit: Hit) -> str | None:
    """The first ``s3://`` URI the item is grounded in, if any."""
    return next((uri for uri in hit.provenance.grounding_uris if uri.startswith(S3_SCHEME)), None)


def result_metadata(hit: Hit, uri: str | None) -> dict[str, Any]:
    """The item's own metadata, then Bedrock's standard keys and what we know about the hit under
    ``x-retrieval-*`` (these win a clash: they describe the hit, whatever the item's metadata says)."""
    fields: dict[str, Any] = {
        "id": hit.id,
        "kind": str(hit.kind),
        "status": str(hit.status),
        "created-at": hit.created_at,
        "signals": {arm: signal.model_dump() for arm, signal in hit.signals.items()},
        "found-by": hit.found_by,
        "source-ids": hit.provenance.source_ids,
        "entity-ids": [mention.entity_id for mention in hit.mentions],
        "supersedes": hit.provenance.supersedes,
    }
    if hit.confidence is not None:
        fields["confidence"] = hit.confidence
    standard = {"x-amz-bedrock-kb-chunk-id": hit.id}
    if uri is not None:
        standard["x-amz-bedrock-kb-source-uri"] = uri
    return {
        **item_metadata(hit),
        **standard,
        **{f"{RESERVED_PREFIX}{name}": value for name, value in fields.items()},
    }


def item_metadata(hit: Hit) -> dict[str, Any]:
    """The item's ``metadata`` (empty when ``include`` left it out)."""
    return dict(hit.metadata)
