"""Our ``RetrieveResponse`` as botocore's ``RetrieveResponse`` shape: ``retrievalResults`` and
``nextToken``, nothing else (a client's parser reads only the members its model names)."""

from __future__ import annotations

from typing import Any

from ...knowledge_bases.catalog import custom_document_id, data_source_of
from ...models.hits import Hit
from ...retrieval.responses import RetrieveResponse
from .names import RESERVED_PREFIX
from .shapes import (
    CustomDocumentLocation,
    KnowledgeBaseRetrieveResponse,
    ResultLocation,
    RetrievalResult,
    S3Location,
    TextContent,
)

S3_SCHEME = "s3://"


def retrieve_answer(response: RetrieveResponse) -> KnowledgeBaseRetrieveResponse:
    return KnowledgeBaseRetrieveResponse(
        retrievalResults=[retrieval_result(hit) for hit in response.hits], nextToken=response.next_token
    )


def retrieval_result(hit: Hit) -> RetrievalResult:
    uri = s3_uri(hit)
    # A document written through bedrock-agent's custom data source is cited by its id, as Bedrock's.
    document_id = custom_document_id(uri)
    if document_id is not None:
        location = ResultLocation(
            type="CUSTOM", customDocumentLocation=CustomDocumentLocation(id=document_id)
        )
    elif uri is not None:
        location = ResultLocation(type="S3", s3Location=S3Location(uri=uri))
    else:
        location = ResultLocation(type="CUSTOM", customDocumentLocation=CustomDocumentLocation(id=hit.id))
    return RetrievalResult(
        content=TextContent(text=hit.text),
        location=location,
        # Bedrock's score is a relevance callers threshold (the strands tool keeps >= 0.4): the hit's
        # calibrated relevance, not its ranking score (which may pass 1 and is per question).
        score=hit.relevance if hit.relevance is not None else 0.0,
        metadata=result_metadata(hit, uri),
    )


def s3_uri(hit: Hit) -> str | None:
    """The S3 object a hit is cited from: its ``location`` as ``/v1/retrieve`` gives it (the first
    grounding span with a URI, else ``metadata.uri``) when that is in S3, else the first ``s3://`` URI
    the item is grounded in; None when it names no S3 object."""
    candidates = (hit.location_uri, *hit.provenance.grounding_uris)
    return next((uri for uri in candidates if uri is not None and uri.startswith(S3_SCHEME)), None)


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
    fields |= _cited(hit)
    standard: dict[str, Any] = {"x-amz-bedrock-kb-chunk-id": hit.id}
    if uri is not None and custom_document_id(uri) is None:
        standard["x-amz-bedrock-kb-source-uri"] = uri
    data_source_id = data_source_of(uri)
    if data_source_id is not None:
        # The id GetDataSource / ListDataSources answer (CUSTOMDOCS, S3CONTEXTS), as Bedrock's.
        standard["x-amz-bedrock-kb-data-source-id"] = data_source_id
    if hit.location is not None and hit.location.page is not None:
        standard["x-amz-bedrock-kb-document-page-number"] = hit.location.page
    return {
        **item_metadata(hit),
        **standard,
        **{f"{RESERVED_PREFIX}{name}": value for name, value in fields.items()},
    }


CITED_FIELDS = {
    "section": "section",
    "anchor": "anchor",
    "url": "url",
    "path": "path",
    "local_path": "local-path",
}
"""The parts of a hit's ``location`` the metadata carries as ``x-retrieval-<name>`` (docs/BEDROCK.md):
where to cite it, and the link that opens it at its section."""


def _cited(hit: Hit) -> dict[str, Any]:
    """The section, its anchor, the link and the file's paths, each only when the hit has one."""
    if hit.location is None:
        return {}
    located = hit.location.model_dump(include=set(CITED_FIELDS), exclude_none=True)
    return {CITED_FIELDS[name]: value for name, value in located.items()}


def item_metadata(hit: Hit) -> dict[str, Any]:
    """The item's ``metadata`` (empty when ``include`` left it out)."""
    return dict(hit.metadata)
